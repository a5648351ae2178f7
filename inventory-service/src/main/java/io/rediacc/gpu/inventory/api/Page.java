package io.rediacc.gpu.inventory.api;

import java.util.List;

/** One page of a list: {@code page} counts from 0, {@code total} is the number of items over all pages. */
public record Page<T>(List<T> items, int page, int size, long total) {
}
