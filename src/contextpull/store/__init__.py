"""The one place that talks SQL: schema, connections, writes and queries."""
