"""What the ``mlfs`` commands do: one module per command, with the library imported at
module level. :mod:`skmlfs.cli._dispatch` imports a command's module when it runs; the
parser modules (``skmlfs.cli._select``, ...) never import these."""
