"""Errors that reach the user as one clear message."""

from __future__ import annotations

from typing import Any


class EcsCombatError(Exception):
    """Base of the errors ecs-combat reports without a traceback."""


class InputError(EcsCombatError):
    """The input is invalid: names the file, the place in it and what is wrong (exit 2)."""

    def __init__(self, file: str | None, path: str, message: str) -> None:
        self.file = file
        self.path = path
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ": ".join(p for p in (self.file, self.path) if p)
        return f"{where}: {self.message}" if where else self.message

    def located(self, file: str) -> InputError:
        """Return the same error with the file named."""
        return InputError(file, self.path, self.message)


class PluginError(EcsCombatError):
    """A plugin failed to import or broke a hook's contract; the message names the plugin."""


class RefusedError(EcsCombatError):
    """The batched engine cannot resolve this scenario (it never answers wrongly)."""


def call_plugin(plugin: str, what: str, function: Any, *args: Any) -> None:
    """Call a plugin's function; an exception from it is the plugin's, reported by name."""
    try:
        result = function(*args)
    except EcsCombatError:
        raise
    except Exception as exc:
        raise PluginError(f"plugin {plugin!r}: {what} raised {type(exc).__name__}: {exc}") from exc
    if result is not None:
        raise PluginError(
            f"plugin {plugin!r}: {what} returned {result!r}; it should change what it is given "
            "and return nothing"
        )
