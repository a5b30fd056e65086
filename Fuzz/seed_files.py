"""Writes a fuzz target's seed files, shared by make-seeds.py and make-reply-seeds.py."""

import os


def write(out: str, seeds: dict[str, bytes]) -> None:
    """Replaces the .bin files in `out` with one file per seed, named after its key."""
    os.makedirs(out, exist_ok=True)
    for old in os.listdir(out):
        if old.endswith(".bin"):
            os.remove(os.path.join(out, old))
    for key, data in seeds.items():
        with open(os.path.join(out, key + ".bin"), "wb") as fh:
            fh.write(data)
