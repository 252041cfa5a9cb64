#!/usr/bin/env python3
"""Builds the offline demo's data (crates/signals/demo/) from recorded GitHub
API responses.

Run from the repository root with the fixtures folder as the argument:

    python3 tools/make-demo-data.py ../shared/fixtures/github

Only MIT- and BSD-licensed recordings are used (see crates/signals/demo/SOURCES.md).
The second instant is the first with the documented edits written out below
(and one recorded issue held back from the first), so the demo shows both
`discovered` and `changed` events without inventing a signal. The output is
committed; neither the tests nor the demo run this script.
"""
import copy
import json
import sys
from pathlib import Path

src = Path(sys.argv[1])
out = Path(__file__).resolve().parent.parent / "crates" / "signals" / "demo"


def load(name):
    return json.loads((src / name).read_text())


def strip_rendered(objs):
    # The recordings asked for `application/vnd.github.v3.full+json`, which
    # adds rendered copies of each body; the collector reads only `body`.
    for o in objs:
        o.pop("body_html", None)
        o.pop("body_text", None)
    return objs


def pull_to_issue_entry(p):
    """A /pulls entry turned into the shape /issues lists pull requests in."""
    return {
        "url": p["issue_url"],
        "html_url": p["html_url"],
        "id": p["id"],
        "node_id": p.get("node_id"),
        "number": p["number"],
        "title": p["title"],
        "user": p["user"],
        "labels": p["labels"],
        "state": p["state"],
        "locked": p["locked"],
        "assignee": p["assignee"],
        "assignees": p["assignees"],
        "milestone": p["milestone"],
        "comments": 0,
        "created_at": p["created_at"],
        "updated_at": p["updated_at"],
        "closed_at": p["closed_at"],
        "author_association": p["author_association"],
        "draft": p["draft"],
        "pull_request": {
            "url": p["url"],
            "html_url": p["html_url"],
            "diff_url": p["diff_url"],
            "patch_url": p["patch_url"],
            "merged_at": p["merged_at"],
        },
        "body": p["body"],
    }


github3_repo = load("repo.sigmavirus24_github3.py.json")
github3_release = strip_rendered([load("releases_latest.sigmavirus24_github3.py.json")])
github3_milestones = load("milestones.sigmavirus24_github3.py.json")
github3_issues = [pull_to_issue_entry(p) for p in load("pulls.sigmavirus24_github3.py.json")]

betamax_issues = strip_rendered(
    load("issues.betamaxpy_betamax.state_all.page1.json")
    + load("issues.betamaxpy_betamax.state_all.page2.json")
)
# No repository object of betamax was recorded; this one is built from the
# facts the recordings do hold (the 301's repository id, the owner object of
# the issues) and is marked as constructed in SOURCES.md.
owner = next(i["user"] for i in betamax_issues if i["user"]["login"] == "sigmavirus24")
betamax_repo = {
    "id": 11439734,
    "name": "betamax",
    "full_name": "betamaxpy/betamax",
    "owner": {**owner, "login": "betamaxpy", "type": "Organization"},
    "html_url": "https://github.com/betamaxpy/betamax",
    "description": "A VCR imitation designed only for python-requests.",
    "homepage": "https://betamax.readthedocs.io",
    "language": "Python",
    "topics": [],
    "default_branch": "master",
    "stargazers_count": 0,
    "forks_count": 0,
    "open_issues_count": sum(1 for i in betamax_issues if i["state"] == "open"),
    "archived": False,
    "license": {"key": "other", "name": "Other", "spdx_id": "NOASSERTION", "url": None},
    "constructed_for_demo": True,
}

instant1 = {
    "repos": {
        "sigmavirus24/github3.py": {
            "repo": github3_repo,
            "releases": github3_release,
            "milestones": github3_milestones,
            "issues": github3_issues,
        },
        "betamaxpy/betamax": {
            "repo": betamax_repo,
            "releases": [],
            "milestones": [],
            "issues": betamax_issues,
        },
    }
}

# --- The second instant: edits of recorded items, dated 2021-11-01. --------
# No item is invented: every entry below is a recorded one with the fields
# named in SOURCES.md changed, or one held back from the first instant.
def issue(objs, number):
    return copy.deepcopy(next(o for o in objs if o["number"] == number))


changes = {"repos": {"sigmavirus24/github3.py": {}, "betamaxpy/betamax": {}}}

g = changes["repos"]["sigmavirus24/github3.py"]
merged = issue(github3_issues, 1033)
merged.update(state="closed", closed_at="2021-11-01T09:12:40Z", updated_at="2021-11-01T09:12:40Z", comments=2)
merged["pull_request"]["merged_at"] = "2021-11-01T09:12:40Z"
ready = issue(github3_issues, 927)
ready.update(draft=False, updated_at="2021-11-01T14:03:05Z")
g["issues"] = [merged, ready]
g["repo"] = {"stargazers_count": github3_repo["stargazers_count"] + 3, "open_issues_count": github3_repo["open_issues_count"] - 1}

b = changes["repos"]["betamaxpy/betamax"]
commented = issue(betamax_issues, 150)
commented.update(comments=commented["comments"] + 2, updated_at="2021-11-01T08:00:11Z")
closed = next(copy.deepcopy(o) for o in betamax_issues if o["state"] == "open" and "pull_request" not in o)
closed.update(state="closed", closed_at="2021-11-01T12:30:00Z", updated_at="2021-11-01T12:30:00Z")
relabelled = next(copy.deepcopy(o) for o in betamax_issues if o["state"] == "open" and "pull_request" not in o and o["number"] != closed["number"])
# A label the recordings hold: betamax's "Bug", as recorded on #143.
bug = next(l for l in issue(betamax_issues, 143)["labels"] if l["name"] == "Bug")
relabelled["labels"] = relabelled["labels"] + [bug]
relabelled["updated_at"] = "2021-11-01T15:45:00Z"
# Recorded issue #143 is held back from the first instant: it appears at the
# second, with its update time moved into the second run's window.
held = issue(betamax_issues, 143)
held["updated_at"] = "2021-11-01T18:20:00Z"
b["issues"] = [commented, closed, relabelled, held]
b["held_back"] = [143]

out.mkdir(parents=True, exist_ok=True)
(out / "instant1.json").write_text(json.dumps(instant1, indent=1, ensure_ascii=False) + "\n")
(out / "changes.json").write_text(json.dumps(changes, indent=1, ensure_ascii=False) + "\n")
print("wrote", out / "instant1.json", out / "changes.json")
