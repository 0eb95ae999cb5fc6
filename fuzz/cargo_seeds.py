"""Seeds and a dictionary for the crate's cargo-fuzz targets (fuzz/Cargo.toml).

    python -m fuzz.cargo_seeds                      # from the repository root
    cargo +nightly fuzz run block_split fuzz/corpus/block_split -- -dict=fuzz/xml.dict

Writes ``fuzz/corpus/<target>/`` and ``fuzz/xml.dict``, neither of them for the repository:
the seeds are the atheris campaign's documents (``seeds.py``: the corpus files when they are
checked out, the parser tests' fixtures, a few made there), each behind control bytes of
fuzz/src/lib.rs's format drawn from a seeded generator, and the dictionary is
``mutate.TOKENS``. libFuzzer adds what it finds to the corpus directory as it runs.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import zlib
from pathlib import Path

from .mutate import dictionary
from .seeds import MADE, SEED_LEN, corpus_docs, fixture_docs

HERE = Path(__file__).resolve().parent
TARGETS = ("text_split", "block_split", "inflate_split")


def control(rng: random.Random, size: int) -> bytes:
    """Control bytes of fuzz/src/lib.rs's format: 0 to 8 cuts within ``size`` bytes."""
    head = rng.randrange(256)
    cuts = head % 9
    return bytes([head]) + b"".join(
        rng.randrange(size + 1).to_bytes(2, "little") for _ in range(cuts)
    )


def write(target: str, *, seed: int = 0) -> int:
    """Write the seeds of ``target``; return how many there are."""
    rng = random.Random(seed)
    out = HERE / "corpus" / target
    out.mkdir(parents=True, exist_ok=True)
    docs = dict.fromkeys(doc[:SEED_LEN] for doc in (*MADE, *fixture_docs(), *corpus_docs()))
    for doc in docs:
        if target == "block_split":
            # The block scanner reads what follows the root start tag, behind a byte
            # choosing the token bound (fuzz_targets/block_split.rs).
            doc = doc[max(doc.find(b"<url"), 0) :]
            data = bytes([rng.randrange(256)]) + control(rng, len(doc)) + doc
        elif target == "inflate_split":
            # The document gzipped, zlib-wrapped or raw, behind a byte choosing the step and
            # the coding (fuzz_targets/inflate_split.rs: bit 2 set for deflate).
            wbits = rng.choice((31, 15, -15))
            packer = zlib.compressobj(rng.choice((1, 6, 9)), zlib.DEFLATED, wbits)
            doc = packer.compress(doc) + packer.flush()
            choice = rng.randrange(256) & ~4 | (0 if wbits == 31 else 4)
            data = bytes([choice]) + control(rng, len(doc)) + doc
        else:
            data = control(rng, len(doc)) + doc
        (out / hashlib.sha1(data).hexdigest()).write_bytes(data)
    return len(docs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    (HERE / "xml.dict").write_text(dictionary())
    for target in TARGETS:
        print(f"{target}: {write(target, seed=args.seed)} seeds")


if __name__ == "__main__":
    main()
