package io.rediacc.gpu.inventory.api;

import org.eclipse.microprofile.openapi.annotations.media.Schema;
import java.util.List;

/**
 * One page of the fleet's GPUs. {@code page} counts from 0; {@code next} is an opaque cursor for
 * the page after this one ({@code after=…}), null on the last page. Walking with cursors returns
 * every GPU exactly once however many are added meanwhile.
 */
@Schema(requiredProperties = {"items", "page", "size", "total"})
public record GpuPage(List<FleetGpu> items, int page, int size, long total, String next) {
}
