# SPDX-License-Identifier: LGPL-2.1-or-later
# Types of the libdice package (libdice/__init__.py).
from fractions import Fraction
from typing import (Dict, FrozenSet, Iterator, List, NamedTuple, Optional,
                    Sequence, Tuple, Union, overload)

from ._ext import DeviceNotFoundError as DeviceNotFoundError
from ._ext import InvalidArgumentError as InvalidArgumentError
from ._ext import NotationError as NotationError

MAX_FAIR_SIDES: int
TABLE_SIDES_MAX: int
METHODS: Tuple[str, ...]
MAPPING_1: int
MAPPING_2: int
MAPPING_3: int
MAPPING_LATEST: int

AliasTable = Tuple[Sequence[int], Sequence[int], int]

def method_name(method: int) -> Optional[str]: ...
def method_parse(name: str) -> int: ...
def alias_build(weights: Sequence[int]) -> Tuple[List[int], List[int], int]: ...

class DieInfo(NamedTuple):
    sides: int
    kind: str
    method: str
    userspace: bool
    source: int

class DieStats(NamedTuple):
    rolls: int
    bits_used: int
    bits_drawn: int
    bits_discarded: int
    coin_bits: int

class Die:
    def __init__(self, sides: Optional[int] = ..., *,
                 weights: Optional[Sequence[int]] = ...,
                 alias: Optional[AliasTable] = ...,
                 userspace: bool = ..., seed: Optional[int] = ...,
                 method: Union[str, int, None] = ...,
                 mapping: Optional[int] = ...) -> None: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> "Die": ...
    def __exit__(self, *exc_info: object) -> None: ...
    @overload
    def roll(self) -> int: ...
    @overload
    def roll(self, n: int) -> List[int]: ...
    def __iter__(self) -> Iterator[int]: ...
    @property
    def info(self) -> DieInfo: ...
    @property
    def stats(self) -> DieStats: ...
    @property
    def mapping(self) -> int: ...

# ---- the notation ----------------------------------------------------------

class Face(NamedTuple):
    value: int
    flags: FrozenSet[str]
    @property
    def dropped(self) -> bool: ...
    @property
    def kept(self) -> bool: ...

class Group(NamedTuple):
    text: str
    start: int
    end: int
    value: int
    dice: List[Face]

class Result:
    total: int
    flags: int
    total_text: str
    text: str
    markdown: str
    expr: str
    tree: List[Group]
    warnings: List[str]
    @property
    def critical(self) -> bool: ...
    @property
    def fumble(self) -> bool: ...
    def __int__(self) -> int: ...

class Distribution(Dict[int, Fraction]):
    expr: str
    min: int
    max: int
    mean: Fraction
    @property
    def probabilities(self) -> Dict[int, Fraction]: ...
    @property
    def median(self) -> int: ...
    def percentile(self, p: int) -> int: ...
    def at_least(self, value: int) -> Fraction: ...
    def at_most(self, value: int) -> Fraction: ...

class Versus(NamedTuple):
    win: Fraction
    tie: Fraction
    lose: Fraction

def roll(expr: str, die: Optional[Die] = ...) -> Result: ...
def rolls(expr: str, die: Optional[Die] = ...) -> List[Result]: ...
def distribution(expr: str) -> Distribution: ...
def versus(a: str, b: str) -> Versus: ...
