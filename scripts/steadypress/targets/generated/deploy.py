"""A generator's output onto the site's files: only the files whose bytes changed are written,
the files gone from the output are removed, and a file steadypress did not write is never
replaced.

What was deployed is not listed in the site (a list of every file would be read and written by
every push, growing with the blog): the site records only what made it (`DEPLOYED`: the commit,
the generator's exact version, the settings, the clock it was built as at). The same generator
makes the same bytes of the same commit as at the same clock, so the deployed output is built
again from that record and compared with the new one here, and a push reads and writes what
changed alone. Where it cannot be made again (another generator version or settings, a commit
this clone lacks) the new output is compared with the site's files themselves, once.

The plan is pure (`plan`); `deploy` carries it out on a `SiteWriter`, whose write lands whole
(one commit on the Pages branch; a journal in a folder)."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime

from steadypress.errors import PermanentError
from steadypress.gitio import OBJECT_ID
from steadypress.targets.site.files import (
    JOURNAL,
    LOCK,
    SET_ASIDE_JOURNAL,
    STAGED,
    SiteWriter,
    unreadable,
)
from steadypress.targets.site.manifest import NO_JEKYLL

__all__ = [
    "DEPLOYED",
    "Deployed",
    "Plan",
    "deploy",
    "encoded",
    "plan",
    "read_deployed",
    "with_site_files",
]

# What steadypress deployed: beside the pages, like the built-in site's index.
DEPLOYED = ".steadypress/generated.json"
_VERSION = 1
# Names an output may not hold: steadypress's own files in the site.
_OWN = (".steadypress/", LOCK, JOURNAL, SET_ASIDE_JOURNAL, f"{STAGED}/")
# Of the files a write may not replace, how many an error names.
_NAMED = 5


@dataclass(frozen=True)
class Deployed:
    """The output steadypress last wrote: built by `generator` at `version` with the settings
    whose digest is `settings`, from the content at `commit` (made at `made`), as at `clock`."""

    generator: str
    version: str
    settings: str
    commit: str
    made: datetime
    clock: datetime

    def same_maker(self, other: Deployed) -> bool:
        """Whether `other` was made by the same generator, version and settings: then one's
        commit built again as at its clock gives the very bytes deployed."""
        return (self.generator, self.version, self.settings) == (
            other.generator, other.version, other.settings
        )  # fmt: skip


def read_deployed(raw: bytes | None) -> Deployed | None:
    """The record in the site, None where there is none; one that cannot be read stops the
    write (`unreadable`), since writing over it would forget which files are steadypress's."""
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        if not isinstance(data, dict) or data.get("version") != _VERSION:
            raise ValueError(f"not a record of version {_VERSION}")
        if not OBJECT_ID.fullmatch(str(data["commit"])):
            raise ValueError("its commit is not a git object id")
        return Deployed(
            generator=str(data["generator"]),
            version=str(data["generator_version"]),
            settings=str(data["settings"]),
            commit=data["commit"],
            made=_moment(data["made"]),
            clock=_moment(data["clock"]),
        )
    except (ValueError, KeyError, TypeError) as error:
        raise unreadable(DEPLOYED, error) from None


def _moment(value: object) -> datetime:
    moment = datetime.fromisoformat(str(value))
    if moment.tzinfo is None:
        raise ValueError(f"{value!r} has no time zone")
    return moment


def encoded(deployed: Deployed) -> bytes:
    return json.dumps(
        {
            "version": _VERSION,
            "generator": deployed.generator,
            "generator_version": deployed.version,
            "settings": deployed.settings,
            "commit": deployed.commit,
            "made": deployed.made.isoformat(),
            "clock": deployed.clock.isoformat(),
        },
        indent=2,
    ).encode()


@dataclass(frozen=True)
class Plan:
    """What a deploy changes: files to write (their bytes), files to remove, and of the files
    written those that the deployed output did not have (`new`: one may be there already, and
    not be steadypress's)."""

    puts: Mapping[str, bytes]
    removals: tuple[str, ...]
    new: tuple[str, ...]


def plan(before: Mapping[str, bytes], output: Mapping[str, bytes]) -> Plan:
    """From the output deployed `before` to `output`."""
    puts = {path: data for path, data in output.items() if before.get(path) != data}
    return Plan(
        puts=puts,
        removals=tuple(sorted(set(before) - set(output))),
        new=tuple(sorted(path for path in puts if path not in before)),
    )


def with_site_files(output: Mapping[str, bytes]) -> dict[str, bytes]:
    """The output as the site holds it: with `.nojekyll` (GitHub Pages would otherwise run
    Jekyll on a branch of built pages), and refused where it holds a name of steadypress's."""
    own = sorted(path for path in output if path.startswith(_OWN))
    if own:
        raise PermanentError(
            f"the generator wrote {own[0]}, a name steadypress keeps in the site for itself"
        )
    return {NO_JEKYLL: b"", **output}


def deploy(
    files: SiteWriter,
    output: Mapping[str, bytes],
    now: Deployed,
    *,
    before: Mapping[str, bytes] | None,
    exact: bool,
    ours: Collection[str] = (),
) -> None:
    """Write `output` over the output deployed `before` (None: not known) and record `now`,
    where anything changed (the record says what made the files there: an output the same
    as the deployed one leaves it be). `exact`: `before` holds the very bytes deployed,
    so only what differs from it is written, unread; else only its paths are known, and each
    file is compared with the site's. A file already there that is neither in `before` nor
    `ours` is not steadypress's: where the output has other bytes for it, nothing is written."""
    change = plan(before or {}, output)
    if not exact:  # every file compared with the site's own
        change = Plan(puts=output, removals=change.removals, new=change.new)
    files.want(oids=[*change.new, *change.removals] if exact else [*output, *change.removals])
    present = [path for path in change.new if files.exists(path)]
    foreign = [p for p in present if p not in ours and files.read(p) != change.puts[p]]
    if foreign:
        named = ", ".join(foreign[:_NAMED]) + (" ..." if len(foreign) > _NAMED else "")
        raise PermanentError(
            f"{len(foreign)} file(s) of the generator's output are already in the site and "
            f"steadypress did not write them ({named}): steadypress never replaces such a file; "
            "remove them from the site (an earlier deploy by another tool?), and the next run "
            "writes them"
        )
    for path, data in change.puts.items():
        # Known to differ from what is there (or that nothing is): written without a compare.
        files.put(path, data, unread=exact and path not in present)
    for path in change.removals:
        files.remove(path)
    if files.may_change or not files.exists(DEPLOYED):
        files.put(DEPLOYED, encoded(now))
