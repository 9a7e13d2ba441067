"""Convention adapters as tables.

One module per attribute convention, each declaring which attribute keys give
which trace field, in precedence order and with the convention's version. The
mapping code (``receivers.mapping``) contains no attribute-name literals of its
own; ``precedence`` joins these tables into the cross-convention order of
SPEC §7.17, adjusted where the captured fixtures showed it was wrong.

Every table name is ``Final``: the modules compile with the mapping code
(``evaluators/_compiled.py``), which then inlines the strings and reads the
tuples and sets as C statics, where a module attribute cost a lookup each
time a reader named it (tens of thousands of lookups a second in a worker).
"""
