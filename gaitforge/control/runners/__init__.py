"""Thin adapters that present each controller family (Raibert & Hodgins,
Wang's skills, modal) as ``control.entry.Entry`` rows of the one registry
(``control.registry``): each module lists its entries and supplies the
family's ``simulate`` and ``measure``."""
