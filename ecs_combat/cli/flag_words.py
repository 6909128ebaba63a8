"""The library's words for a run's options, said as `ecs-combat simulate`'s flags: the library
names what a Python caller gave (:mod:`ecs_combat.simulation.options`), the command line the
flags its user typed."""

from __future__ import annotations

from ecs_combat.errors import InputError
from ecs_combat.simulation.options import (
    CHECKPOINTS,
    CHUNK_SIZE,
    OUTPUT,
    PLOT,
    RESULTS_FILE,
    RESUME,
    SCHEDULER,
)

#: Each option the library names -> the flag that gives it.
FLAGS = {
    OUTPUT: "--out",
    RESULTS_FILE: "--out",
    CHECKPOINTS: "--out",
    RESUME: "--resume",
    SCHEDULER: "--scheduler",
    CHUNK_SIZE: "--chunk-size",
    PLOT: "--plot",
}

#: Phrases of the library's messages -> the same advice in flags.
PHRASES = (
    ("start a new run instead of resuming", "drop --resume to start a run"),
    ("resume that run to finish it", "add --resume to finish it"),
    ("number of battles, seed and plugins", "--battles, --seed and plugins"),
    (f"needs a {CHECKPOINTS}, the directory", "needs --out DIR, the directory"),
    ("is a file: an output path is a .csv", "is a file: --out takes a .csv"),
    (
        f"resume the run from its {CHECKPOINTS} to run the rest",
        "run the same command with --resume to run the rest",
    ),
    (
        f"give a {CHECKPOINTS} to keep finished tasks, and resume the run from it to run only "
        "the rest",
        "run with --out DIR to keep finished tasks, and --resume to run only the rest",
    ),
)


def in_flags(text: str) -> str:
    """A library message in the command line's words: an option named first (``results file
    PATH: ...``) and the advice in :data:`PHRASES`."""
    for word, flag in FLAGS.items():
        if text.startswith(f"{word} "):
            text = flag + text[len(word) :]
            break
    for phrase, flags in PHRASES:
        text = text.replace(phrase, flags)
    return text


def as_flags(error: InputError) -> InputError:
    """The same error, its option (:data:`FLAGS`) and advice in flags."""
    file = FLAGS.get(error.file, error.file) if error.file is not None else None
    return InputError(file, error.path, in_flags(error.message))
