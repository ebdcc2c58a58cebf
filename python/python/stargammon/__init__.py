"""Stargammon: backgammon and Tavli positions, legal plays, the neural nets' evaluation,
searched hints and cube decisions, rollouts, the bear-off database, match analysis, and
games between engines. A thin layer over the Rust library (docs/python.md)."""

from ._stargammon import (
    Engine,
    InternalError,
    Play,
    Position,
    __version__,
    analyse,
    bearoff,
    duel,
    play_match,
    plays,
)

__all__ = [
    "Engine",
    "InternalError",
    "Play",
    "Position",
    "__version__",
    "analyse",
    "bearoff",
    "duel",
    "play_match",
    "plays",
]
