-- The physical cards (PCI addresses, a JSON array) each CDI device reaches, as the machine's node-agent
-- read them from sysfs: exclusive grants reserve cards, whatever nodes a spec happens to list. Rows
-- written before this column say '[]' until the machine's next inventory.
ALTER TABLE machine_devices ADD COLUMN IF NOT EXISTS cards text NOT NULL DEFAULT '[]';
