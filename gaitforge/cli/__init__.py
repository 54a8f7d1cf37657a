"""The ``gaitforge`` command line (thin: parse, call one library function, report)."""
