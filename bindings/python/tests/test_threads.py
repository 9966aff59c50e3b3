# SPDX-License-Identifier: LGPL-2.1-or-later
"""Threads: the GIL is released while libdice rolls, and a die shared by
threads serves one call at a time."""

import threading
import time

import libdice


def test_two_threads_two_dice():
    results = {}

    def work(name, sides):
        with libdice.Die(sides, userspace=True) as d:
            results[name] = [d.roll(1000) for _ in range(50)]

    threads = [threading.Thread(target=work, args=(n, s))
               for n, s in (("a", 6), ("b", 20))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name, sides in (("a", 6), ("b", 20)):
        faces = [f for chunk in results[name] for f in chunk]
        assert len(faces) == 50000 and set(faces) == set(range(1, sides + 1))


def test_two_threads_one_die_take_turns(oracle):
    # Each roll(1000) holds the die: the calls of both threads, in the
    # order they ran, are the one seeded stream (the C engine's).
    calls = []
    lock = threading.Lock()
    d = libdice.Die(seed=2024)

    def work():
        for _ in range(40):
            with lock:	# records the order the die served them in
                calls.append(d.roll(1000))

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert d.stats.rolls == 80000
    assert [f for c in calls for f in c] == oracle(2024, 80000, "d6")
    d.close()


def test_two_threads_one_die_without_a_python_lock():
    # Nothing serialises them but the die's own lock: every roll(500)
    # must still come back whole and the count must add up.
    d = libdice.Die(1000, userspace=True)
    errors = []

    def work():
        try:
            for _ in range(100):
                faces = d.roll(500)
                assert len(faces) == 500
                assert all(1 <= f <= 1000 for f in faces)
        except Exception as e:	# surfaced in the main thread below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and d.stats.rolls == 100000
    d.close()


def test_gil_released_while_rolling():
    # One long roll(n) in a thread; if it held the GIL, this thread could
    # not run until it ended.  It runs, many times, meanwhile.
    d = libdice.Die(2**64 - 1, seed=1, method="rejection")
    started = threading.Event()
    took = []

    def work():
        started.set()
        t = time.monotonic()
        d.roll(1_000_000)
        took.append(time.monotonic() - t)

    t = threading.Thread(target=work)
    spins = 0
    t.start()
    started.wait()
    while t.is_alive():
        spins += 1
    t.join()
    d.close()
    assert took and took[0] > 0.02
    assert spins > 1000, (spins, took)


def test_close_waits_for_a_roll_in_another_thread():
    d = libdice.Die(seed=3)
    started = threading.Event()
    done = []

    def work():
        started.set()
        try:
            done.append(len(d.roll(2_000_000)))
        except ValueError:	# closed before the roll began: fine too
            done.append("closed")

    t = threading.Thread(target=work)
    t.start()
    started.wait()
    d.close()		# a roll under way finishes first: never cut short
    t.join()
    assert done in ([2_000_000], ["closed"])
    assert d.closed
