"""A generator's output onto the site's files: only the files whose bytes changed are written,
the files gone from the output are removed, and a file steadypress did not write is never
replaced. What steadypress wrote is recorded in the site itself (`DEPLOYED`), with the blob id
of each file, so a change is found without reading the site's files back.

The plan is pure (`plan`); `deploy` carries it out on a `SiteWriter`, whose write lands whole
(one commit on the Pages branch; a journal in a folder)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from steadypress.errors import PermanentError
from steadypress.gitio import OBJECT_ID, blob_oid
from steadypress.targets.site.files import JOURNAL, LOCK, SET_ASIDE_JOURNAL, SiteWriter, unreadable
from steadypress.targets.site.manifest import NO_JEKYLL

__all__ = ["DEPLOYED", "Deployed", "Plan", "deploy", "plan", "read_deployed", "with_site_files"]

# What steadypress deployed: beside the pages, like the built-in site's index.
DEPLOYED = ".steadypress/generated.json"
_VERSION = 1
# Names an output may not hold: steadypress's own files in the site.
_OWN = (".steadypress/", LOCK, JOURNAL, SET_ASIDE_JOURNAL)
# Of the files a write may not replace, how many an error names.
_NAMED = 5


@dataclass(frozen=True)
class Deployed:
    """The output steadypress last wrote: built by `generator` from the content at `commit`
    (made at `made`), each file with its blob id."""

    generator: str
    commit: str
    made: datetime
    files: Mapping[str, str]


def read_deployed(raw: bytes | None) -> Deployed | None:
    """The record in the site, None where there is none; one that cannot be read stops the
    write (`unreadable`), since writing over it would forget which files are steadypress's."""
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        files = data["files"]
        if data.get("version") != _VERSION or not isinstance(files, dict):
            raise ValueError(f"not a record of version {_VERSION}")
        if not all(isinstance(o, str) and OBJECT_ID.fullmatch(o) for o in files.values()):
            raise ValueError("a file's blob id is not a git object id")
        if not OBJECT_ID.fullmatch(str(data["commit"])):
            raise ValueError("its commit is not a git object id")
        return Deployed(
            generator=str(data["generator"]),
            commit=data["commit"],
            made=datetime.fromisoformat(data["made"]),
            files=files,
        )
    except (ValueError, KeyError, TypeError) as error:
        raise unreadable(DEPLOYED, error) from None


def _encoded(deployed: Deployed) -> bytes:
    return json.dumps(
        {
            "version": _VERSION,
            "generator": deployed.generator,
            "commit": deployed.commit,
            "made": deployed.made.isoformat(),
            "files": dict(sorted(deployed.files.items())),
        },
        separators=(",", ":"),
    ).encode()


@dataclass(frozen=True)
class Plan:
    """What a deploy changes: files to write (their bytes), files to remove, and of the files
    written those that steadypress did not write before (`new`: one may be there already)."""

    puts: Mapping[str, bytes]
    removals: tuple[str, ...]
    new: tuple[str, ...]


def plan(before: Mapping[str, str], output: Mapping[str, bytes]) -> Plan:
    """From the blob ids steadypress wrote `before` to the files of `output`."""
    puts = {path: data for path, data in output.items() if before.get(path) != blob_oid(data)}
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
    files: SiteWriter, before: Deployed | None, now: Deployed, output: Mapping[str, bytes]
) -> int:
    """Write `output` over what was deployed `before`, and record `now`; the number of files
    written or removed. Files already there that steadypress did not write are left alone:
    where the output has one of the same name and other bytes, nothing is written."""
    change = plan(before.files if before else {}, output)
    files.want(oids=change.new)
    present = [path for path in change.new if files.exists(path)]
    foreign = [path for path in present if files.read(path) != change.puts[path]]
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
        files.put(path, data, unread=path not in present)
    for path in change.removals:
        files.remove(path)
    if change.puts or change.removals or before is None or before.commit != now.commit:
        files.put(DEPLOYED, _encoded(now))
    return len(change.puts) + len(change.removals)
