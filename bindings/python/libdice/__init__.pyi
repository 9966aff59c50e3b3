# SPDX-License-Identifier: LGPL-2.1-or-later
# Types of the libdice package (libdice/__init__.py).
from typing import (Iterator, List, NamedTuple, Optional, Sequence, Tuple,
                    Union, overload)

from ._ext import DeviceNotFoundError as DeviceNotFoundError
from ._ext import InvalidArgumentError as InvalidArgumentError

MAX_FAIR_SIDES: int
TABLE_SIDES_MAX: int
METHODS: Tuple[str, ...]

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
                 method: Union[str, int, None] = ...) -> None: ...
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
