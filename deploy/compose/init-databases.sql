-- One database per central service (docker-compose.yml mounts this into postgres' init directory).
CREATE DATABASE grants;
CREATE DATABASE inventory;
