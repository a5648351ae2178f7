-- The GPU listing pages by key, (machine, gpu_index, id), never by offset: one index serves the
-- order, the key comparison and the page-start pass. It also serves the per-machine lookups
-- and deletes that gpu_machine served.
DROP INDEX gpu_machine;
CREATE INDEX gpu_listing ON gpu (machine, gpu_index, id);
