#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpus of the libFuzzer targets (fuzz/corpus/NAME/).

The seeds are committed; this script documents what each one is and
rewrites them: python3 fuzz/mkcorpus.py.  The input layout of fuzz_alias
is described at the top of fuzz_alias.c.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# fuzz_alias header byte: mode | width code << 2 | method << 4 | U8 << 7
WEIGHTS, ALIAS, FAIR = 0, 1, 2
RECYCLE, VIGLIETTA, BATCH, ALIASM, REJECTION = range(5)


def head(mode, code=0, method=RECYCLE, u8=False):
    return bytes([mode | code << 2 | method << 4 | (0x80 if u8 else 0)])


def bits(n, seed=1):
    """n bytes of a fixed pseudo-random stream to roll with."""
    out, x = bytearray(), seed
    for _ in range(n):
        x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
        out.append(x >> 56)
    return bytes(out)


def weights(ws, width=1, **kw):
    fmt = {1: 'B', 2: '<H', 4: '<I'}[width]
    body = b''.join(struct.pack(fmt, w) if width != 3 else w.to_bytes(3, 'little')
                    for w in ws)
    return head(WEIGHTS, width - 1, **kw) + struct.pack('<H', len(ws) - 1) + body


def alias(mass, cols, code=0, **kw):
    """cols: (threshold, alias); 'bad' threshold or alias = the sentinel."""
    tb = 1 << code
    body = b''
    for thr, al in cols:
        body += (b'\xff' * tb if thr == 'bad' else thr.to_bytes(tb, 'little'))
        body += struct.pack('<H', 0xffff if al == 'bad' else al)
    return (head(ALIAS, code, **kw) + struct.pack('<H', len(cols) - 1) +
            struct.pack('<Q', mass) + body)


def fair(sides, **kw):
    return head(FAIR, **kw) + struct.pack('<Q', sides)


ALIAS_SEEDS = {
    'weights-d6': weights([1] * 6) + bits(64),
    'weights-2-2-6-1-1': weights([2, 2, 6, 1, 1]) + bits(64, 2),
    'weights-2-2-6-1-1-alias-method':
        weights([2, 2, 6, 1, 1], method=ALIASM) + bits(64, 3),
    'weights-one-side-only': weights([0] * 7 + [5] + [0] * 2) + bits(32),
    'weights-all-zero': weights([0, 0, 0, 0]),
    'weights-u32-max': weights([2**32 - 1, 1, 2**32 - 1], width=4) + bits(64),
    'weights-zipf-1000': weights([1000 // (i + 1) for i in range(1000)],
                                 width=2) + bits(256, 4),
    'weights-300-sides-u8-format': weights([1] * 300, u8=True) + bits(16),
    'weights-loaded-viglietta-refused':
        weights([3, 1], method=VIGLIETTA) + bits(16),
    'alias-5-columns': alias(10, [(10, 0), (4, 2), (10, 2), (7, 0), (9, 1)])
        + bits(64, 5),
    'alias-threshold-over-mass': alias(10, [(10, 0), ('bad', 0)]),
    'alias-index-out-of-range': alias(10, [(3, 'bad'), (10, 1)]),
    'alias-zero-mass': alias(0, [(0, 0)]),
    'alias-share-overflows': alias(2**64 - 1, [(0, 0)] * 3, code=3),
    'alias-share-just-fits': alias(2**63, [(2**63, 0), (0, 0)], code=3)
        + bits(64, 6),
    'fair-d6-recycle': fair(6) + bits(64, 7),
    'fair-d1': fair(1) + bits(8),
    'fair-zero-sides': fair(0),
    'fair-max-batch': fair(2**64 - 1, method=BATCH) + bits(256, 8),
    'fair-2p63-plus-1-rejection': fair(2**63 + 1, method=REJECTION)
        + bits(256, 9),
    'fair-1000003-viglietta': fair(1000003, method=VIGLIETTA) + bits(128, 10),
    'fair-d6-bad-method': fair(6, method=7) + bits(16),
}

# Odd lengths are parsed with the custom die dW (see fuzz_notation.c).
NOTATION_SEEDS = {
    'd6': 'd6',
    'sum-plus-constant': '3d6+2',
    'keep-highest': '4d6kh3',
    'drop-lowest-repeated': '6x4d6dl1',
    'exploding-success': '10d10!>=8',
    'compound-explode': '3d6!!',
    'reroll-always': '5d6r1',
    'reroll-once': '5d6ro<3',
    'success-failure': '6d10>=7f1',
    'percentile': 'd%',
    'fudge': '4dF',
    'custom-faces': 'd{1,2,3:5}',
    'custom-faces-zero-weight': 'd{-5:2,0,10:0}',
    'custom-die-odd-length': '3dW',
    'arithmetic': '(2d6+3)*2-1d4',
    'negation': '-d6 + -(2d4)',
    'largest-die': '1d18446744073709551615',
    'keep-lowest': '2d20kl1',
    'error-unbalanced': '(3d6',
    'error-trailing': '2d6 +',
}


def write(name, seeds):
    d = os.path.join(HERE, 'corpus', name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    for k, v in seeds.items():
        with open(os.path.join(d, k), 'wb') as f:
            f.write(v.encode() if isinstance(v, str) else v)


write('alias', ALIAS_SEEDS)
write('notation', NOTATION_SEEDS)
