#!/bin/sh
# Create Temporal's two databases and bring their schemas to this server version, with
# the admin-tools image's temporal-sql-tool. Idempotent: a second run finds the
# databases there and applies no schema version twice.
set -eu
SQL="temporal-sql-tool --plugin postgres12 --ep postgresql -p 5432 -u ${POSTGRES_USER} --pw ${POSTGRES_PWD}"
SCHEMA=/etc/temporal/schema/postgresql/v12
for db in temporal temporal_visibility; do
  $SQL --db "$db" create || echo "database $db exists"
done
$SQL --db temporal setup-schema -v 0.0
$SQL --db temporal update-schema -d "$SCHEMA/temporal/versioned"
$SQL --db temporal_visibility setup-schema -v 0.0
$SQL --db temporal_visibility update-schema -d "$SCHEMA/visibility/versioned"
