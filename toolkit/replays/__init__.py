"""Replays: one log through one setting, event by event (``toolkit.replay`` is the function)."""
from toolkit.replays.run import ReplayResult, replay

__all__ = ["ReplayResult", "replay"]
