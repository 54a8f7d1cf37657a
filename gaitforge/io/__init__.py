"""Everything that reads or writes files (the only layer that opens them)."""
