"""The engine's two refusals, both `ValueError`s so a caller can catch either.

`InvalidInput` means the input cannot be understood at all (a malformed roll, an unknown
colour, a sheet file of the wrong shape). `IllegalPlacement` means it was understood and
breaks a rule; its message is the rule's reason, written for the player.
"""


class InvalidInput(ValueError):
    """Input that cannot be understood: malformed text, wrong shape, unknown name."""


class IllegalPlacement(ValueError):
    """A well-formed action that breaks a rule; the message says which and why."""


class InvalidLayout(InvalidInput):
    """A sheet-layout file that fails validation."""
