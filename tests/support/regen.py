"""Write NAME.events.jsonl for recorded streams that have none yet (review them by hand!).

python -m tests.support.regen            # only missing files
python -m tests.support.regen --force    # rewrite all
"""

from __future__ import annotations

import sys

from tests.support import corpus, feed_chunks, write_events


def main() -> None:
    force = "--force" in sys.argv
    for case in corpus():
        if force or not case.expected_path.exists():
            events = feed_chunks([case.data()], case.provider, **case.options())
            write_events(case.expected_path, events)
            print("wrote", case.expected_path)


if __name__ == "__main__":
    main()
