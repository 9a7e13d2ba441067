"""Convention adapters as tables.

One module per attribute convention, each declaring which attribute keys give
which trace field, in precedence order and with the convention's version. The
mapping code (``receivers.mapping``) contains no attribute-name literals of its
own; ``precedence`` joins these tables into the cross-convention order of
SPEC §7.17, adjusted where the captured fixtures showed it was wrong.
"""
