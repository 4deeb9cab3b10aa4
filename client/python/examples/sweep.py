#!/usr/bin/env python3
"""A parameter sweep on a Satin grid: N-queens for several board sizes at
once, as futures, then one named, profiled UTS job awaited from asyncio.

    python3 sweep.py ipc:///tmp/g/a0.sock [ipc:///tmp/g/b0.sock ...]

Several endpoints make the client fail over: a job whose node dies is
submitted again to the next one.
"""
import asyncio
import concurrent.futures
import sys
import time

import satin


def main(endpoints):
    with satin.Client(endpoints if len(endpoints) > 1 else endpoints[0]) as c:
        print("connected to", c.endpoint)
        print("grid:", ", ".join("%s(%s) %s" % (n["node"], n["cluster"], n["state"])
                                 for n in c.grid_status()))
        t0 = time.monotonic()
        jobs = {c.submit("nqueens", n=k): k for k in range(6, 13)}
        for job in concurrent.futures.as_completed(jobs):
            rep = job.result()
            print("  nqueens n=%-2d  %6d solutions  %.3f s on the grid, %d records run"
                  % (jobs[job], rep.result["solutions"], rep.stats["wall_s"], rep.stats["records_run"]))
        print("sweep of %d jobs: %.2f s" % (len(jobs), time.monotonic() - t0))

        try:
            c.submit("nqueens", n="twelve")
        except satin.BadParameters as e:
            print("refused:", e)

        async def tree():
            return await c.submit_with("uts", {"tree": "T3"}, name="uts T3 profiled", profile=True)
        rep = asyncio.run(tree())
        print("%s: %d nodes in %.3f s" % (rep.name, rep.result["nodes"], rep.stats["wall_s"]))
        for node in rep.profile.nodes:
            steals = node.steals()
            print("  %s: %d worker(s) busy %.1f ms, %d steal request(s) answered"
                  % (node.node, node.workers, node.busy_ns() / 1e6, len(steals)))
        print("the grid's jobs:", ["%s@%s:%s" % (j["kind"], j["node"], j["state"])
                                   for j in c.list(all=True, grid=True)][-4:])


if __name__ == "__main__":
    main(sys.argv[1:] or [None])
