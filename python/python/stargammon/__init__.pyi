"""Type stubs of the package stargammon (the compiled module stargammon._stargammon)."""

from os import PathLike
from typing import Any, Dict, List, Literal, Optional, Tuple, TypedDict, Union

__version__: str

Variant = Literal["backgammon", "portes", "plakoto", "fevga"]
Dice = Tuple[int, int]
StrPath = Union[str, "PathLike[str]"]

class InternalError(RuntimeError):
    """A failure inside the engine (a Rust panic): a bug, never an answer to bad input."""

class Position:
    """A backgammon position with its match state, or a Tavli game's position."""

    @staticmethod
    def parse(text: str, variant: Optional[Variant] = None) -> "Position":
        """A gnubg Position ID (with or without Match ID), an XGID or a FIBS board string;
        with a Tavli `variant`, a position string. Raises ValueError on bad input."""
    @staticmethod
    def start(variant: Optional[Variant] = None) -> "Position":
        """The starting position of a game, before the first roll."""
    @property
    def variant(self) -> Variant: ...
    @property
    def position_id(self) -> str: ...
    @property
    def match_id(self) -> str: ...
    @property
    def xgid(self) -> str: ...
    @property
    def text(self) -> str:
        """`POSITIONID:MATCHID` for backgammon, the position string for Tavli."""
    @property
    def slots(self) -> List[int]: ...
    @property
    def pips(self) -> Tuple[int, int]: ...
    @property
    def decision(
        self,
    ) -> Literal["move", "double_or_roll", "take_or_drop", "beaver_answer", "game_over"]: ...
    @property
    def dice(self) -> Optional[Dice]: ...
    @property
    def cube(self) -> int: ...
    @property
    def match_length(self) -> int: ...
    @property
    def score(self) -> Tuple[int, int]: ...
    def __eq__(self, other: object) -> bool: ...

class Play:
    """One legal play and the position after it (the opponent to act)."""

    @property
    def move(self) -> str:
        """gnubg notation; empty when the roll cannot be played."""
    @property
    def position(self) -> Position: ...
    @property
    def end(self) -> Optional[str]:
        """How the play ended a Tavli game: "win 1", "win 2" or "tie"."""

def plays(position: Position, dice: Dice) -> List[Play]: ...

class Evaluation(TypedDict):
    probs: List[float]
    equity: float
    cubeless: float
    cubeful: float
    value_kind: Literal["equity", "mwc"]
    depth: int

class RankedPlay(TypedDict):
    move: str
    equity: float
    value: float
    diff: float
    probs: List[float]
    depth: int
    plies: int
    search_rank: int

class CubeAnswer(TypedDict, total=False):
    action: str
    equities: Dict[str, float]
    evaluation: str
    value_kind: Literal["equity", "mwc"]
    proper: str
    proper_text: str
    response: str
    too_good: bool
    efficiency: float
    jacoby: bool
    beavers: bool
    crawford: bool
    cube_available: bool
    reason: str
    reason_text: str
    take_point: float
    cash_point: float
    too_good_point: Optional[float]
    take_points: Dict[str, float]
    cash_points: Dict[str, float]
    taker_wins: float
    doubler_wins: float
    cubeless: float
    costs: Dict[str, float]
    market_losers: Dict[str, float]

class CubeHint(TypedDict):
    position_id: str
    match_id: str
    cube: CubeAnswer
    evaluation: Dict[str, Any]
    ms: float

class Engine:
    """An engine built from a spec string as the command line reads them."""

    def __init__(self, spec: str = "net") -> None: ...
    @property
    def spec(self) -> str: ...
    @property
    def depth(self) -> int: ...
    def evaluate(self, position: Position) -> Evaluation: ...
    def hint(
        self,
        position: Position,
        dice: Optional[Dice] = None,
        rank: int = 5,
        threads: int = 1,
    ) -> List[RankedPlay]: ...
    def hint_report(
        self,
        position: Position,
        dice: Optional[Dice] = None,
        rank: int = 5,
        threads: int = 1,
    ) -> Dict[str, Any]: ...
    def cube(self, position: Position) -> CubeHint: ...
    def choose(self, position: Position) -> Union[Play, str]: ...
    def rollout(
        self,
        position: Position,
        trials: int = 1296,
        seed: int = 1,
        dice: Optional[Dice] = None,
        truncate: Optional[int] = None,
        top: int = 5,
        threads: Optional[int] = None,
        variance_reduction: bool = True,
        cubeful: bool = False,
        cube: bool = False,
    ) -> Dict[str, Any]: ...

def bearoff(position: Position) -> Dict[str, Any]: ...
def analyse(
    path: StrPath,
    depth: int = 1,
    threads: Optional[int] = None,
    rollout: bool = False,
    rollout_trials: Optional[int] = None,
    rollout_seed: int = 1,
    rollout_skill: Literal["doubtful", "error", "blunder"] = "doubtful",
    rollout_engine: Optional[str] = None,
) -> Dict[str, Any]: ...
def duel(
    a: str,
    b: str,
    games: int = 1000,
    seed: int = 1,
    threads: Optional[int] = None,
    variant: Optional[Variant] = None,
    vr: bool = False,
    judge: str = "net",
) -> Dict[str, Any]: ...
def play_match(
    a: str,
    b: str,
    games: Optional[int] = None,
    length: Optional[int] = None,
    matches: Optional[int] = None,
    cube: Optional[bool] = None,
    seed: int = 1,
    parallel: int = 1,
    timeout: float = 30.0,
    games_out: Optional[StrPath] = None,
    mat: Optional[StrPath] = None,
    sgf: Optional[StrPath] = None,
    variant: Optional[str] = None,
    vr: bool = False,
    judge: str = "net",
    a_cube: Optional[str] = None,
    b_cube: Optional[str] = None,
) -> Dict[str, Any]: ...
