#!/usr/bin/env python3
"""Instructions per operation under callgrind, against the hand-written
baseline, and the scaling curve of a cached hit; fails when a budget is
exceeded.

    cd Benchmarks
    swift build -c release --product forge-instructions
    python3 Scripts/instructions.py            # the tables, the issue's budgets enforced
    python3 Scripts/instructions.py --markdown # the same, as Markdown tables
    python3 Scripts/instructions.py --today    # what CI runs: instructions held to today's levels

Scenarios: a cached hit, a transient build (declared as its class, and as a
protocol), issue 5's chain A(B(C)), ForgeInject's set-up of a container, a cached hit while another
task's async build records what it resolves, a cached hit beside another
task's `withOverrides` scope and inside a scope of another container, a
cached hit of an async
dependency awaited in the caller's own async function (against the
synchronous hit read there), and behind an awaited call of an async
function (from an async context, and from one that runs on its caller's
executor), 64 tasks' first resolutions of an
async singleton (per iteration), a kept main-actor dependency read on the
main actor, and a resolution while an override is in force (container-wide;
`forge-scope`: in a `withOverrides` scope; `forge-other` and
`forge-scope-other`: of a dependency not overridden, beside one that is;
`forge-parked`: beside an override never read, whose key read is parked),
against a hit of the same dialect.

Each count runs the executable twice under `valgrind --tool=callgrind`, with
N and N + STEP operations, and divides the difference by STEP: start-up and
set-up cancel out, and the result is the same from run to run (instruction
counts do not move with the machine's load as wall-clock time does). Calls
to malloc are counted the same way, from the call graph.

The scaling curve is wall-clock time (best of five passes in one process),
not instructions: what grows with the number of dependencies is cache
misses as much as instructions.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BINARY = os.path.join(HERE, "..", ".build", "release", "forge-instructions")
BASE, STEP = 10_000, 100_000
DIALECTS = ["forge", "forgeinject", "swiftpod", "fetcher"]
SCALE_SIZES = [100, 1000, 5000, 20000]

# The budgets of issue 10.
HIT_EXTRA = 40          # a cached hit: at most hand-written + 40 instructions
TRANSIENT_RATIO = 1.5   # a transient build: at most 1.5x hand-written
SCALE_RATIO = 2.0       # a hit at 5,000 dependencies: within 2x a hit at 10
# The scaling curve is wall-clock time, which moves 30-50 % between
# processes here; CI (--today) holds it to 3x, which still catches the cliff
# issue 10 removed (11-15x), and reports the 2x budget.
SCALE_RATIO_TODAY = 3.0
# What the engine reaches today where it misses those budgets: CI fails if a
# change makes it worse (see Benchmarks/README.md, "Instruction counts").
# Tightened on 5521639 (hits 193-210, transient builds up to 774, 2.11x).
# Tightened again (from 100) on 2026-11-28, when the hit came to test one
# thread flag, stopped testing a process-wide word for its fences, and (in
# SwiftPod and DependencyFetcher) jumped to misses that take the container
# as an ordinary argument: hits 147 (SwiftPod, within issue 10's + 40
# with its provider a `let` of main.swift; 155 in a `static let`), 155,
# 169 and 170 against the hand-written 113. A change of code
# layout moves the counts by a few (function merging, register choice).
# 2026-11-28, again (62 -> 45): a hit compares its key's first word first,
# reads its thread's flag and the scope gate in one load, and finds no null
# table; Forge's kept `provide` passes its site packed, in registers (its
# getter is inlined again); ForgeInject keeps its table cell and trusts a
# type key's slots; the forge-instructions target no longer merges
# functions (a thunk of the harness's). Hits 155, 150, 139 and 151:
# ForgeInject's, SwiftPod's and DependencyFetcher's within + 40, Forge's
# + 42.
# Later that day every dialect came within issue 10's + 40 (153 / 149 /
# 138 / 150): CI holds the hits to + 42, two for code layout (a loop's
# alignment no-op fell on Forge's hit path and off it again with
# unrelated changes).
# 2026-11-29: held to issue 10's + 40 itself, which asks that CI fail when
# a budget is exceeded: every dialect has met it since 6b1d49a (153 / 149 /
# 138 / 150), and a count is the same in every build of the same code. A
# change that moves Forge's hit by a loop's alignment now fails CI, and
# the hit has to be won back (or the budget argued) before it lands.
HIT_EXTRA_TODAY = HIT_EXTRA
# A transient build is held to issue 10's budget with --today too: every
# dialect meets it. SwiftPod's since a transient whose slot is cached
# builds in a small function of its own (590 -> 544, hand-written 367).
# Forge's since `provide` builds a transient whose slot exists with none of
# the general path's closures (618 -> 491, hand-written 371; 2026-11-25).
# It was 760 (2.07x) before the `provide` whose factory keeps its own
# type. ForgeInject's, held to 1.85x until then (704 -> 661 when it ran a
# transient's registered builder under a hazard pointer instead of
# retaining it), since its builders receive an existential of the
# container made once (635 -> 559) and its build past the published read
# stopped reading the published cell again (559 -> 550; 2026-11-26).
# A transient declared as a protocol (`any TransientMarker`, not
# class-bound), the shape apps declare: no budget of its own; CI holds each
# dialect to its level (today's count + 4 %), one malloc (the instance).
# Forge's was 3,042 while its factory returned `Any` (the runtime's general
# cast from `Any` to the protocol on every build), 1,079 with the `provide`
# that keeps the factory's type, whose conversion the compiler makes
# statically, 954 once a transient whose slot exists is built with none of
# the general path's closures (2026-11-25).
# Forge's `forge-preview` is the same declaration with a preview: 2,965
# while a `provide` with a preview took the seed's closures returning
# `Any`, 1,141 with the overload that keeps both closures' types, 985 with
# the short transient build (2026-11-25).
# ForgeInject's lowered (from 1,165) when its `resolve()` was inlined into
# its callers (1,066 -> 1,055; 2026-11-26), and again (from 1,090) when its
# builders received an existential of the container made once and its
# build stopped reading the published cell twice (1,045 -> 961).
# Each level as (instructions, mallocs), as held_to_levels reads them.
TRANSIENT_PROTOCOL_LEVEL = {"forge": (990, 1), "forge-preview": (1025, 1), "forgeinject": (1000, 1), "swiftpod": (1025, 1)}
# Issue 5's chain A(B(C)): two transient builds around a cached hit, at most
# twice the hand-written chain (740). No DependencyFetcher row: a service is
# made once per fetcher. Measured from 2026-11-25 (before, only by the wall
# clock, where ForgeInject read 1.97-2.21x). A builder resolves through a
# protocol (SwiftPod's `ProviderResolver`, ForgeInject's
# `ForgeContainerProtocol`), where `T` is not known, and each nested
# resolution looked up generic metadata (`Optional<T>`, `Unmanaged<Factory>`):
# SwiftPod 1,895 -> 1,290, ForgeInject 2,608 -> 1,548 without them.
# ForgeInject missed the ratio and was held to a level of its own (1,595,
# then 1,580 once a builder's resolution through the protocol got a
# witness of its own, `_resolveThroughProtocol`: 1,548 -> 1,534) until its
# builders received the container as an existential made once, not per
# build, which a retain, a release and a destroy cost each time (1,514 ->
# 1,362; 2026-11-26). Every dialect now meets the ratio.
CHAIN_RATIO = 2.0
CHAIN_SYSTEMS = ["forge", "forgeinject", "swiftpod"]
# Issue 5's set-up (100 registrations within 10 µs), measured here as a new
# ForgeContainer, sixteen registrations and one resolution, against a
# dictionary of sixteen closures by hand: no budget in instructions, so CI
# holds ForgeInject to its level (today's count + 4 %) and its mallocs.
# It was 203,113 instructions and 145 mallocs while each registration
# spelled its type's name and made a validation closure at once; 45,428
# and 24 since validation makes them when it runs (2026-11-25); 25 mallocs
# and about 47,080 instructions (from 46,090; level 47,250 -> 48,500) since
# a registration's factory lives in an object of its own, made at the
# type's first resolution (an allocation and the generic class's metadata
# lookup), so that a transient's build calls it without a retain. 26
# mallocs and about 46,360 instructions (level 48,500 -> 48,250) since a
# container makes, once, the existential its builders receive (an object
# of its own), where each build made one (2026-11-26). About 41,320
# (level 48,250 -> 43,000) since ForgeInject's locked registration path,
# the type's first resolution, runs code made for its key (2026-11-26).
# About 34,505 and 23 mallocs (level 43,000 -> 35,900) since a store
# starts its dictionaries without a literal, an override target holds its
# key without an `AnyHashable`, and a lock and a store allocate once less
# each (2026-11-26).
# The count spreads by about 2 % between processes of one build (Swift's
# hashing is seeded per process, and the set-up is dictionary work): on
# 2026-11-28 three runs read 35,444, 35,407 and 35,407, and one 36,116,
# over the level; the level goes to 36,500 (3 % over the common count).
SETUP_LEVEL = {"forgeinject": (36500, 23)}
# A set-up costs hundreds of hits: fewer operations, as for first-async.
SETUP_BASE, SETUP_STEP = 200, 2000
# Issue 12's `validate()` of one root (benchmark scenario 11 by the wall
# clock): ForgeInject's three registrations, the chain A(B(C)) in Forge and
# SwiftPod, a leaf service in DependencyFetcher; by hand, the chain built.
# No budget: CI holds each dialect to its level (today's count + about
# 4 %) and its mallocs. A type's name was rendered each time a report or a
# root named it (`String(reflecting:)`, thousands of instructions) until
# names were kept once rendered (2026-11-26): Forge 118,235 -> 89,156
# instructions (98 -> 74 mallocs), ForgeInject 226,885 -> 139,265
# (159 -> 87), SwiftPod 95,826 -> 73,646 (73 -> 55), DependencyFetcher
# 41,285 -> 34,197 (38 -> 32). ForgeInject 139,265 -> 144,034 (87 -> 89
# mallocs; level 145,000 -> 150,000) since a validation notes what each
# run built, so that a root an earlier run built is skipped: its three
# registrations go leaves first, so nothing is skipped here, and the notes
# are the cost (a graph registered top-down is built once instead of once
# per registration above each node; scenario 12 by the wall clock).
# Mallocs 72/83/53/29 -> 70/80/51/27 since a lock and a store allocate
# once less each (2026-11-26).
# Forge's lowered (86,100 -> 81,000) when its key compared and hashed its
# file's text in place (82,062 -> 77,161; mallocs 70 -> 61).
VALIDATE_LEVEL = {"forge": (81000, 61), "forgeinject": (130200, 80), "swiftpod": (70750, 51), "fetcher": (32000, 27)}
# A validation costs hundreds of hits: fewer operations.
VALIDATE_BASE, VALIDATE_STEP = 20, 200
# Issue 5's: a resolution while an override is in force costs at most twice
# a plain cached hit of the same dialect. Met by container-wide overrides;
# a `withOverrides` scope reads a task-local on every resolution and misses
# it, so CI holds that one to today's level.
OVERRIDE_RATIO = 2.0
# 3.2 since its read fell to 486 (3.18x): the level below then decides.
SCOPED_OVERRIDE_RATIO_TODAY = 3.2
# Today's levels as instruction counts, measured on 21e4aaf: a ratio alone
# tightens when a hit gets cheaper (Forge's hit went from 231 to 197 with
# DeclarationKey while its override went from 413 to 396), so --today
# holds an override to the larger of its ratio and its level. Forge's
# scoped one rose from 706 to 715 (level 710 → 720) when the published read
# learned to tell a gate raised by other tasks' recording async builds from
# one raised by a scope: a scope's resolution asks once more, out of line
# (`Gates.isClearForThisTask` in ForgeCore).
# Forge's miss serves what a container with overrides serves most before
# it sets up the general path's closures (2026-11-25): its container-wide
# override went from 387 to 318, within the ratio; its scoped one rose from
# 679 to 705 (the miss's larger frame).
# Two more Forge reads, of a kept dependency that is not overridden:
# `forge-other` while another one is overridden on the container (801
# before that change, 282 after: held to the ratio), and
# `forge-scope-other` inside a `withOverrides` scope that overrides another
# one (2,519: the general path, which reads the task's scope and decides
# the layer on every such read; held to its level).
# The general path's front serves such a read from the container's
# published instance when the scope neither overrides the dependency nor
# reaches an override from it, reading the task's scope once where the
# general path read three task-locals (2026-11-25): `forge-scope-other`
# went from 2,520 to 1,355 (level 2,620 → 1,410); `forge-scope` rose from
# 706 to 722 (level 720 → 735), the front's larger choice.
# `forge-parked`: a kept dependency's read on a container with an override
# that nothing has read yet, so its key read is parked (issue 11: installing
# an override runs nothing) and holds the container on the general path:
# 1,833 when first measured (2026-11-25), held to its level.
# 2026-11-28: a read in a scope no longer walks the scopes for a strict mode
# or an isolated store, nor hashes its slot with SipHash, and reads the
# task's scope in place: `forge-scope` 733 -> 676 (level 735 -> 700),
# `forge-scope-other` 1,345 -> 802 (level 1,410 -> 830).
# 2026-11-28, later: Forge's hit fell from 173 to 155 while its
# container-wide override read stayed at 323-325 (its miss now probes the
# empty table a store's fast cell holds while overrides are installed,
# where it tested for nil): 2x the hit (310) is missed by 15, and CI holds
# it to its level (+ 3 %).
# 2026-11-28, last: a read in a scope takes a short lock for its scope's
# reach memo and does not retain the scope, and Forge's miss asks the
# scope gate once, before it sets up the general path's closures or
# unpacks its site: `forge-scope` 680 -> 512, `forge-scope-other`
# 811 -> 575 (with the reach memo probed through one buffer); the container-wide override 325 -> 303, within 2x the hit
# (306) again; a parked key read 1,787 -> 1,797 (the scope's question, out
# of line). Levels: today's count + 3 %.
# 2026-11-28, a later stop: the task-local's address returned, not written
# through a pointer to a local (no stack-protector check): `forge-scope`
# 512 -> 486, `forge-scope-other` 575 -> 548. Levels: today's count + 3 %.
# Later still: a read held on the general path by a parked key read, with
# no observer to tell, takes one lock there (it took two) and makes no
# event, name or clock reading: `forge-parked` 1,797 -> 1,020.
# 2026-11-29: Forge's container-wide override read had risen to 309 (a read
# section per probe, then the test of a kept key per argument's mark) and
# missed 2x its hit (306); "installed, and not held on the general path"
# is now one unsigned comparison, not two signed ones: 306, within 2x
# again. Level 312 -> 308: its count + 2 for code layout, as the hits
# had until they were held to issue 10's budget itself (HIT_EXTRA_TODAY);
# issue 5's 2x is not a budget CI holds this read to.
OVERRIDE_LEVEL_TODAY = {"forge": 308, "forge-parked": 1051, "forge-scope": 501, "forge-scope-other": 565}
OVERRIDE_SYSTEMS = ["forge", "forge-other", "forge-parked", "forge-scope", "forge-scope-other", "swiftpod", "fetcher"]
# Issue 13: a cached hit of an async dependency, awaited, within 2x the
# synchronous hit of the same dialect. Measured where user code awaits a
# dependency: in its own async function (`async-hit-in-caller`: the await
# written in the scenario's async loop), held to 2x the dialect's `hit`; the
# synchronous hit read in that same loop (`hit-in-async-caller`, the same
# harness with `try await` and `.value` left out) is reported beside it, not
# held (Forge's with a capturing factory is 2.11x it). `async-hit` and
# `async-hit-in-place` wrap each read in an awaited call of an async
# function of their own, which no library can make cheaper (hand-written: a
# synchronous accessor 113, an async one 459, or 281 on the caller's
# executor); they are held to their levels, measured on the commit that
# added each.
ASYNC_HIT_RATIO = 2.0
# Raised once (from 620, 765, 695, 690) when the handle became a struct that
# can carry its factory, which ended a retain cycle between a Forge
# container and its async dependencies' handles (see Benchmarks/HISTORY.md, "Async dependencies").
# Lowered (from 660, 875, 755, 745) when the dialects' async entry points
# stopped awaiting `value` after the handle's resolution, which hopped to the
# generic executor a second time on every hit, and ForgeInject's read the
# published instance in place (without copying the handle). Lowered again
# (from 651, 652, 652) when that in-place read borrowed the handle's build
# and published instance instead of retaining and releasing them, and
# SwiftPod and DependencyFetcher took it too. SwiftPod's and
# DependencyFetcher's lowered (from 566, 566) when their providers and
# services cached their slot (529, 528). ForgeInject's, SwiftPod's and
# DependencyFetcher's lowered (from 561, 540, 540) when their async entry
# points' misses moved out of line (548 -> 540, 525 -> 515, 525 -> 515).
# Forge's lowered (from 660) when the handle's two optional factories
# became one field, so that the property returns it in registers (643 ->
# 635). ForgeInject's lowered (from 556) when its async key became a
# tagged type identity and its read stopped comparing the handle's type,
# two lookups of generic metadata fewer (534 -> 520). All four lowered
# (from 650, 540, 530, 530) when the published reads under them came to
# test one thread flag and no fence word (2026-11-28: 617, 507, 504, 504).
ASYNC_HIT_LEVEL_TODAY = {"forge": 630, "forgeinject": 520, "swiftpod": 515, "fetcher": 515}
# Issue 13: the same cached async hit, awaited from a function that runs on
# its caller's executor (`nonisolated(nonsending)`, the default under Swift
# 6.2's approachable concurrency). The dialects' async entry points run on
# their caller's executor too, so a hit switches no executor (before they
# did: 655-664 instructions here, and a caller on the main actor suspended
# on every hit). What remains above the synchronous hit is the await of a
# function (hand-written: 281, against 113 for a synchronous accessor) and
# the handle's hit and published read. ForgeInject, SwiftPod and
# DependencyFetcher meet the 2x target here (1.73x to 1.85x) since their
# entry points read the kept handle in place, borrowing its build and
# published instance (before: 2.17x to 2.30x, two retains and releases
# more). Forge misses it (2.38x): its property hands the handle out, a
# value that owns its build. Each dialect is held to its level (today's
# count + 2 %); the row says what 2x its hit is. SwiftPod's and
# DependencyFetcher's lowered (from 391, 392) when their providers and
# services cached their slot (357 each): their hit got 15 cheaper, so 2x
# it is 368 and 390. Lowered again (from 384, 365, 365) when the async entry
# points' misses moved out of line, which left the hit a smaller async frame
# (372 -> 369, 352 -> 342, 352 -> 342), back under 2x of SwiftPod's hit,
# which had got 5 cheaper (348). Forge's lowered (from 493) when its
# handle came back from the property in registers (474 -> 466).
# ForgeInject's lowered (from 380) to 2x its hit, which it meets again
# since its async key became a tagged type identity and its read stopped
# comparing the handle's type (364 -> 351). All four lowered (from 480,
# 362, 352, 352) on 2026-11-28 with the synchronous hit's changes (448,
# 341, 331, 331); the 2x target tightened with the cheaper hits, so
# ForgeInject (341 against 340), SwiftPod and DependencyFetcher (331
# against 294 and 310) miss it again. Lowered again (later that day) when a
# read stopped loading the cell twice and an async hit's copy stopped
# testing its optional (444, 332, 324, 324): ForgeInject meets 2x its hit
# (334) again; SwiftPod and DependencyFetcher miss it (288, 302).
ASYNC_HIT_IN_PLACE_LEVEL = {"forge": 457, "forgeinject": 342, "swiftpod": 334, "fetcher": 334}
# Issue 13: 64 tasks first read an async singleton of a fresh container
# (one build), per iteration, against a task started under a lock by hand.
# No budget in the issue; CI holds instructions to today's level + 3 % (runs
# differ by about 0.5 %: the tasks' interleaving under valgrind varies) and
# mallocs to today's + 3, so a waiter that starts allocating (each one once
# wrapped a synchronous factory in a new closure) fails CI.
FIRST_ASYNC_BASE, FIRST_ASYNC_STEP = 20, 40
# Lowered (from 1,670,000, 1,726,000, 1,628,000 and 1,631,000, mallocs 398,
# 478, 444, 443) when the build's waiters stopped keeping their
# continuations in collections whose types mention the value's type: the
# build's methods are not specialised, so each such operation looked up
# generic metadata (about 6,500 instructions per waiter). ForgeInject's
# lowered again (from 1,255,000 and 472) when the async entry points began
# to run on their caller's executor: its waiters switched executor once
# more each.
FIRST_ASYNC_LEVEL = {
    "forge": (1_155_000, 393),
    "forgeinject": (1_185_000, 408),
    "swiftpod": (1_185_000, 438),
    "fetcher": (1_182_000, 437),
}
# Issue 13: a kept main-actor dependency read on the main actor. The issue
# asks for the scenario and sets no budget, so CI holds each dialect to its
# level (+12 on the count when it was set). ForgeInject's synchronous
# resolve() finds no synchronous builder first; that miss once cost 3,352
# to 3,408 instructions and 2 mallocs and moved between runs, then was a
# steady 1,038 with none, and is 535 since the main-actor check asks the
# runtime only when its cheap answers do not apply and the hit reads the
# published instance in place (level lowered from 1,050). SwiftPod and
# DependencyFetcher read in place too since, borrowing the handle's state:
# 214 (levels lowered from 295). ForgeInject's miss reads the store's copy of
# the shared "not registered" error instead of the lazily made global (whose
# check calls into the runtime on Linux), twice per hit: 498 (from 544).
# Since a type with no synchronous registration reads its main-actor
# instance before failing the synchronous one (no throw and catch): 420
# (level lowered from 510). Raised to 460 when a change elsewhere moved the
# binary's layout: its missing synchronous key then collides with the
# table's one entry, one probe more in each of two lookups, 448 (see
# Benchmarks/HISTORY.md, "Validation's executor"). Forge's: 289 (level lowered from 330) since its
# property makes the handle it hands out from the kept one's state in place
# (one retain and release fewer). SwiftPod's and DependencyFetcher's
# lowered (from 226) when their providers and services cached their slot
# (211 -> 188). ForgeInject's is 383 since its main-actor key became a
# tagged type identity (396 before); its level stays, for the collision
# above.
# (instructions, mallocs), as held_to_levels reads them.
MAIN_ACTOR_HIT_LEVEL = {"forge": (301, 0), "forgeinject": (460, 0), "swiftpod": (194, 0), "fetcher": (194, 0)}
# Issue 13: "without slowing the synchronous hot path". A cached hit, from a
# task, while another task runs the first build of an async singleton (which
# records what its factory resolves). Until the gate that build raises let
# other tasks keep the lock-free read, every resolution of the process took
# the general path meanwhile: 1,360, 2,708, 1,319 and 1,330 instructions.
# What remains above the plain hit is one task-local read. CI holds each
# dialect to its level (today's count + 3 %), with no malloc. SwiftPod's and
# DependencyFetcher's lowered (from 413, 425) when their providers and
# services cached their slot (386, 397). Raised (to 427, 430) when their
# hit became a function with no frame of its own (hits 184 -> 179 and
# 195 -> 190): a raised gate is now left to the out-of-line miss, whose
# frame this scenario pays (414, 417). ForgeInject's lowered (from 430)
# when its `resolve()` was inlined into its callers (409 -> 390).
# 2026-11-28: every level lowered when the task-locals asked while another
# task's gate is raised were read in place, not through `TaskLocal.get()`
# (376 / 370 / 387 / 402 -> 314 / 308 / 324 / 339).
# A later stop that day: the task-local's address returned, not written
# through a pointer to a local (301 / 310 / 324 / 336 -> 283 / 292 / 306 /
# 318); levels today's count + 3 %.
HIT_WHILE_ASYNC_BUILDS_LEVEL = {"forge": 292, "forgeinject": 301, "swiftpod": 315, "fetcher": 328}
# Issue 10's scope gate: a cached hit from a task that holds no scope while
# another task holds a `withOverrides` scope (a test beside another), and
# one inside a `withOverrides` scope of another container (which applies
# to nothing read). The gate a scope raises is process-wide, so both leave
# the lock-free read; ForgeInject's then took the locked path (2,493 and
# 3,286 instructions) until it learned the general path's front that the
# other dialects take (one task-local read, then the published instance):
# 492 and 1,285. CI holds each dialect to its level (today's count + 3 %),
# with no malloc. ForgeInject's lowered (from 507 and 1,324) when its
# `resolve()` was inlined into its callers (487 -> 473, 1,280 -> 1,266).
# 2026-11-28: every level lowered when reads in a scope stopped walking the
# scopes for a strict mode or an isolated store and hashing the slot with
# SipHash, and task-locals were read in place: beside a scope 552 / 450 /
# 485 / 498 -> 500 / 400 / 434 / 447, in another container's scope 1,351 /
# 1,243 / 1,278 / 1,291 -> 808 / 702 / 736 / 749.
# Later that day Forge's rose (500 -> 514, level 530): its miss probes the
# empty table a store's fast cell now holds instead of nil, and unpacks
# the site its hit passes (see HIT_EXTRA_TODAY); in another container's
# scope 808 -> 824, within its level.
# Last that day: the scope's reach memo under a short lock, the scope read
# unretained, and Forge's miss asking the scope before the general path's
# closures, and the memo probed through one buffer: beside a scope 507 /
# 396 / 429 / 439 -> 398 / 394 / 426 / 436, in another container's scope
# 817 / 700 / 733 / 743 -> 581 / 571 / 603 / 613. Levels: today's count
# + 3 %.
# A later stop that day: the task-local's address returned, not written
# through a pointer to a local, which cost the read a stack-protector
# check: beside a scope 398 / 394 / 426 / 436 -> 369 / 365 / 397 / 407, in
# another container's scope 581 / 571 / 603 / 613 -> 554 / 544 / 576 / 586.
HIT_BESIDE_SCOPE_LEVEL = {"forge": 380, "forgeinject": 376, "swiftpod": 409, "fetcher": 419}
HIT_IN_OTHER_SCOPE_LEVEL = {"forge": 571, "forgeinject": 560, "swiftpod": 593, "fetcher": 604}
# Issue 12: recording and tracing cost nothing when off. Instruction counts
# are exact, but a hit-off process did more before its loop (a validation,
# a graph); the counts are per operation, so the bound is the hit itself
# plus a rounding margin.
OFF_NOISE = 2


def no_mallocs(per_operation):
    """Whether an operation allocates nothing. The count is a difference of
    two runs, and the async runtime's own allocations (its worker threads,
    its task bookkeeping) differ by a few between runs, so it can come out
    a few thousandths above or below zero; an operation that allocates
    shows as 1 or more."""
    return round(per_operation) == 0


def shown(mallocs):
    """A malloc count for the tables, with two decimals: a difference of two
    runs a few thousandths below zero (see no_mallocs) prints as 0.00, not
    -0.00."""
    return f"{0.0 if abs(mallocs) < 0.005 else mallocs:.2f}"


def callgrind(scenario, system, count):
    """(instructions, malloc calls) of one run."""
    with tempfile.NamedTemporaryFile(suffix=".cg", delete=False) as out:
        path = out.name
    try:
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={path}", BINARY, scenario, system, str(count)],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return parse(path)
    finally:
        os.unlink(path)


def parse(path):
    total, mallocs, names, calling_malloc = 0, 0, {}, False
    name_line = re.compile(r"^c?fn=\((\d+)\)(?: (.*))?$")
    with open(path, errors="replace") as lines:
        for line in lines:
            if line.startswith("summary:") or line.startswith("totals:"):
                total = int(line.split()[1])
                continue
            match = name_line.match(line.strip())
            if match:
                number, name = match.groups()
                if name:
                    names[number] = name
                calling_malloc = line.startswith("cfn=") and names.get(number, "") == "malloc"
                continue
            if line.startswith("calls=") and calling_malloc:
                mallocs += int(line.split("=")[1].split()[0])
                calling_malloc = False
    return total, mallocs


def per_operation(scenario, system, base=BASE, step=STEP):
    """(instructions, mallocs) per operation, each rounded to a hundredth:
    an operation runs a whole number of instructions, and what the two
    runs' one-off work leaves over (a few hundred instructions in all,
    under 0.01 per operation) would otherwise decide a comparison with a
    budget made of whole numbers (153.003 against 112.999 + 40)."""
    small = callgrind(scenario, system, base)
    large = callgrind(scenario, system, base + step)
    return round((large[0] - small[0]) / step, 2), round((large[1] - small[1]) / step, 2)


def per_iteration_first_async(system):
    """(instructions, mallocs) per iteration of `first-async`: each iteration
    is 64 tasks, so fewer iterations than the other scenarios' operations."""
    small = callgrind("first-async", system, FIRST_ASYNC_BASE)
    large = callgrind("first-async", system, FIRST_ASYNC_BASE + FIRST_ASYNC_STEP)
    return (large[0] - small[0]) / FIRST_ASYNC_STEP, (large[1] - small[1]) / FIRST_ASYNC_STEP


def scale(system, size):
    """(ns per hit over 10 dependencies, ns per hit over `size`), from one process."""
    out = subprocess.run([BINARY, "scale", system, str(size)], check=True, capture_output=True, text=True)
    small, large = out.stdout.split()
    return float(small), float(large)


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--report-only", action="store_true", help="never fail on a budget")
    parser.add_argument(
        "--today", action="store_true",
        help="hold the instruction counts to today's levels instead of the issue's budgets, which they miss")
    args = parser.parse_args()
    if not os.path.exists(BINARY):
        sys.exit(f"build it first: swift build -c release --product forge-instructions ({BINARY})")

    failures = []
    rows = []
    def record(scenario, system, instructions, mallocs, limit, ok, enforced=True):
        """One row of the table; a failure too when it misses and `enforced`."""
        rows.append((scenario, system, instructions, mallocs, limit, "met" if ok else "MISSED"))
        if not ok and enforced:
            failures.append(f"{scenario} {system}: {instructions:.0f} instructions, {shown(mallocs)} mallocs ({limit})")

    hand = {scenario: per_operation(scenario, "hand") for scenario in ("hit", "transient")}
    for scenario in ("hit", "transient"):
        hand_instructions, hand_mallocs = hand[scenario]
        rows.append((scenario, "hand-written", hand_instructions, hand_mallocs, "", ""))
        for system in DIALECTS:
            if scenario == "transient" and system == "fetcher":
                continue  # a service is made once per fetcher: no transient
            instructions, mallocs = per_operation(scenario, system)
            if scenario == "hit":
                budget = hand_instructions + (HIT_EXTRA_TODAY if args.today else HIT_EXTRA)
                ok = instructions <= budget and no_mallocs(mallocs)
                limit = f"≤ {budget:.0f}, 0 mallocs"
            else:
                budget = hand_instructions * TRANSIENT_RATIO
                ok = instructions <= budget
                limit = f"≤ {budget:.0f}"
            record(scenario, system, instructions, mallocs, limit, ok)
        if scenario == "hit":
            # SwiftPod's hit with its provider in a `static let`, as apps
            # declare providers outside `main.swift`: read for what the
            # lazy initialiser's check costs, held to nothing.
            instructions, mallocs = per_operation("hit", "swiftpod-static")
            rows.append(("hit", "swiftpod-static", instructions, mallocs,
                         "none (the provider in a lazily initialised `static let`)", ""))

    def held_to_levels(scenario, levels, base=BASE, step=STEP):
        """The hand-written row, then each system held to its level: at most
        `level` instructions and `allowed` mallocs, from `levels`."""
        hand, hand_mallocs = per_operation(scenario, "hand", base, step)
        rows.append((scenario, "hand-written", hand, hand_mallocs, "", ""))
        for system, (level, allowed) in levels.items():
            instructions, mallocs = per_operation(scenario, system, base, step)
            limit = f"≤ {level} (its level; {instructions / hand:.2f}× hand-written), {allowed} mallocs"
            ok = instructions <= level and round(mallocs) <= allowed
            record(scenario, system, instructions, mallocs, limit, ok)

    held_to_levels("transient-protocol", TRANSIENT_PROTOCOL_LEVEL)
    hand_chain, hand_chain_mallocs = per_operation("chain", "hand")
    rows.append(("chain", "hand-written", hand_chain, hand_chain_mallocs, "", ""))
    for system in CHAIN_SYSTEMS:
        instructions, mallocs = per_operation("chain", system)
        budget = hand_chain * CHAIN_RATIO
        limit = f"≤ {budget:.0f} ({CHAIN_RATIO}× hand-written)"
        # The instances the chain makes, and nothing more.
        allowed = round(hand_chain_mallocs)
        ok = instructions <= budget and round(mallocs) <= allowed
        record("chain", system, instructions, mallocs, f"{limit}, {allowed} mallocs", ok)
    held_to_levels("setup", SETUP_LEVEL, SETUP_BASE, SETUP_STEP)
    held_to_levels("validate", VALIDATE_LEVEL, VALIDATE_BASE, VALIDATE_STEP)

    hits = {system: instructions for scenario, system, instructions, *_ in rows if scenario == "hit"}
    def held_to_hit(scenario, systems):
        """Each of `systems`' count for `scenario`, held to the dialect's
        plain hit (+ OFF_NOISE), with no malloc."""
        for system in systems:
            instructions, mallocs = per_operation(scenario, system)
            budget = hits[system] + OFF_NOISE
            limit = f"≤ {budget:.0f} (its hit + {OFF_NOISE}), 0 mallocs"
            ok = instructions <= budget and no_mallocs(mallocs)
            record(scenario, system, instructions, mallocs, limit, ok)

    # Issue 12: a hit with graph export, validation and tracing available but
    # off (used once, observer removed) costs what a plain hit costs.
    held_to_hit("hit-off", DIALECTS)
    # A hit in a pod (a fetcher) made after another one read the provider
    # (the service) first and went: the gone one's slot cache moves on, so
    # the hit is the plain hit.
    held_to_hit("hit-after-gone-pod", ("swiftpod", "fetcher"))

    def held(scenario, budget_of, systems=DIALECTS):
        """Each of `systems`' count for `scenario` (every dialect's unless
        told), with the hand-written one, held to `budget_of(system,
        instructions)`: a budget and how to state it; no malloc either
        way."""
        hand, _ = per_operation(scenario, "hand")
        rows.append((scenario, "hand-written", hand, 0.0, "", ""))
        for system in systems:
            instructions, mallocs = per_operation(scenario, system)
            budget, stated = budget_of(system, instructions)
            limit = f"{stated}, 0 mallocs"
            ok = instructions <= budget and no_mallocs(mallocs)
            record(scenario, system, instructions, mallocs, limit, ok)

    def at_level(levels, against_hit):
        """A scenario with no budget of its own: held to its level;
        `against_hit` says how a count compares with the dialect's hit."""
        return lambda system, instructions: (
            levels[system], f"≤ {levels[system]} (its level; {against_hit(system, instructions)})")

    def twice_its_hit_is(system, _):
        """How an async hit behind an awaited call of the scenario's own
        async function compares with ASYNC_HIT_RATIO times the dialect's
        synchronous hit (which the call alone exceeds by hand)."""
        return f"{ASYNC_HIT_RATIO}× its hit is {hits[system] * ASYNC_HIT_RATIO:.0f}"

    # Issue 13's target: an async dependency's cached hit awaited in the
    # caller's own async function, at most ASYNC_HIT_RATIO times the
    # dialect's synchronous hit (`hit`), with no malloc. Each row also says
    # how it compares with the synchronous hit read in that same loop
    # (`hit-in-async-caller`, reported, held to nothing of its own).
    # `forge-capturing`: Forge's properties with factories that capture the
    # container, as most apps' do.
    in_caller_systems = ["forge", "forge-capturing", "forgeinject", "swiftpod", "fetcher"]
    hits_in_async_caller = {}
    hand_in_caller, hand_in_caller_mallocs = per_operation("hit-in-async-caller", "hand")
    rows.append(("hit-in-async-caller", "hand-written", hand_in_caller, hand_in_caller_mallocs, "", ""))
    for system in in_caller_systems:
        instructions, mallocs = per_operation("hit-in-async-caller", system)
        hits_in_async_caller[system] = instructions
        rows.append(("hit-in-async-caller", system, instructions, mallocs, "none (async-hit-in-caller's reference)", ""))

    def within_hit_ratio(system, instructions):
        """Issue 13's budget: ASYNC_HIT_RATIO times the dialect's `hit`,
        with the ratio to its hit in the same loop beside it."""
        budget = hits["forge" if system == "forge-capturing" else system] * ASYNC_HIT_RATIO
        same_loop = instructions / hits_in_async_caller[system]
        return budget, f"≤ {budget:.0f} ({ASYNC_HIT_RATIO}× its hit; {same_loop:.2f}× its hit in the same loop)"

    held("async-hit-in-caller", within_hit_ratio, in_caller_systems)
    held("hit-while-async-builds", at_level(HIT_WHILE_ASYNC_BUILDS_LEVEL, lambda system, _: f"its hit is {hits[system]:.0f}"))
    held("hit-beside-scope", at_level(HIT_BESIDE_SCOPE_LEVEL, lambda system, _: f"its hit is {hits[system]:.0f}"))
    held("hit-in-other-scope", at_level(HIT_IN_OTHER_SCOPE_LEVEL, lambda system, _: f"its hit is {hits[system]:.0f}"))
    held("async-hit", at_level(ASYNC_HIT_LEVEL_TODAY, twice_its_hit_is))
    held("async-hit-in-place", at_level(ASYNC_HIT_IN_PLACE_LEVEL, twice_its_hit_is))
    hand_first, hand_first_mallocs = per_iteration_first_async("hand")
    rows.append(("first-async", "hand-written", hand_first, hand_first_mallocs, "", ""))
    for system in DIALECTS:
        instructions, mallocs = per_iteration_first_async(system)
        budget, allowed = FIRST_ASYNC_LEVEL[system]
        limit = f"≤ {budget:,} ({instructions / hand_first:.2f}× hand-written), ≤ {allowed} mallocs (today's levels)"
        ok = instructions <= budget and mallocs <= allowed
        record("first-async", system, instructions, mallocs, limit, ok, enforced=args.today)
    held_to_levels("main-actor-hit", MAIN_ACTOR_HIT_LEVEL)
    for system in OVERRIDE_SYSTEMS:
        instructions, mallocs = per_operation("override", system)
        hit = hits["forge" if system.startswith("forge") else system]
        ratio = OVERRIDE_RATIO
        if system == "forge-scope" and args.today:
            ratio = SCOPED_OVERRIDE_RATIO_TODAY
        budget = hit * ratio
        limit = f"≤ {budget:.0f} ({ratio}× its hit), 0 mallocs"
        level = OVERRIDE_LEVEL_TODAY.get(system) if args.today else None
        if level is not None and level > budget:
            budget = level
            limit = f"≤ {level} (today's level; {ratio}× its hit is {hit * ratio:.0f}), 0 mallocs"
        ok = instructions <= budget and no_mallocs(mallocs)
        record("override", system, instructions, mallocs, limit, ok)

    # Each size in a process of its own, paired with a hit over ten in the
    # same process; the ratio at 5,000 is the median of three processes.
    curve = {}
    for system in ["hand", "forge", "swiftpod", "fetcher"]:
        curve[system] = [scale(system, size) for size in SCALE_SIZES]
        ratios = [pair[1] / pair[0] for pair in [scale(system, 5000) for _ in range(3)]]
        curve[system].append(median(ratios))
        scale_budget = SCALE_RATIO_TODAY if args.today else SCALE_RATIO
        if system != "hand" and median(ratios) > scale_budget:
            failures.append(f"scale {system}: a hit at 5,000 dependencies is {median(ratios):.2f}x a hit at 10 (≤ {scale_budget}x)")

    if args.markdown:
        print("| scenario | system | instructions/op | mallocs/op | budget | |")
        print("| --- | --- | ---: | ---: | --- | --- |")
        for scenario, system, instructions, mallocs, limit, verdict in rows:
            print(f"| {scenario} | {system} | {instructions:.0f} | {shown(mallocs)} | {limit} | {verdict} |")
        print()
        print("| system | " + " | ".join(f"{size:,}" for size in SCALE_SIZES) + " | 5,000 ÷ 10 (median of 3) |")
        print("| --- | " + " | ".join("---:" for _ in SCALE_SIZES) + " | ---: |")
        for system, values in curve.items():
            cells = [f"{large:.1f} ({small:.1f})" for small, large in values[:-1]]
            print(f"| {system} | " + " | ".join(cells) + f" | {values[-1]:.2f} |")
    else:
        for scenario, system, instructions, mallocs, limit, verdict in rows:
            print(f"{scenario:10} {system:13} {instructions:8.0f} instructions {shown(mallocs):>6} mallocs  {limit:22} {verdict}")
        print("ns per hit by number of distinct kept dependencies (a hit over 10 in the same process):", SCALE_SIZES)
        for system, values in curve.items():
            cells = [f"{large:6.1f} ({small:4.1f})" for small, large in values[:-1]]
            print(f"  {system:10} " + "  ".join(cells) + f"   5,000 / 10: {values[-1]:.2f}")

    if failures:
        print("\nBudgets exceeded:\n  " + "\n  ".join(failures), file=sys.stderr)
        if not args.report_only:
            sys.exit(1)


if __name__ == "__main__":
    main()
