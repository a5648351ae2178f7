package io.rediacc.gpu.inventory.api;

import org.eclipse.microprofile.openapi.annotations.media.Schema;
import java.util.List;

/** One page of a list: {@code page} counts from 0, {@code total} is the number of items over all pages. */
@Schema(requiredProperties = {"items", "page", "size", "total"})
public record Page<T>(List<T> items, int page, int size, long total) {
}
