#!/usr/bin/env python3
"""Writes the seed inputs of every fuzz target, `fuzz/corpus/<target>/seed-*`,
from the recorded answers the repository already holds (docs/fuzzing.md).

Bodies come from the recorded fixtures (crates/signals-github/tests/data,
crates/signals-gitlab/tests/data, crates/signals/demo/gitlab and gitea),
trimmed to stay small: a list keeps its first two entries, a string its
first 300 characters, an object nested three deep only its plain values,
and the API's `*_url` link templates are left out (`html_url` and
`web_url`, which the collector reads, stay). Heads (status, headers) follow what each host
documents and what signals-testhost sends. Run it again after a fixture
changes; the inputs libFuzzer added beside the seeds are left alone. It
also writes `regression-*`: inputs that once crashed a target, so that
every run replays them.

    python3 fuzz/seed.py
"""

import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
GITHUB = ROOT / "crates/signals-github/tests/data"
GITLAB = ROOT / "crates/signals-gitlab/tests/data"
DEMO = ROOT / "crates/signals/demo"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# The separator of answers in a `collect` input (src/collect.rs).
SEP = "\n===\n"


KEPT_URLS = {"html_url", "web_url"}


def trim(value, depth=0):
    if isinstance(value, list):
        return [trim(v, depth + 1) for v in value[:2]]
    if isinstance(value, dict):
        return {
            k: trim(v, depth + 1)
            for k, v in value.items()
            if not (k.endswith("_url") and k not in KEPT_URLS)
            and (depth < 3 or not isinstance(v, (dict, list)))
        }
    if isinstance(value, str) and len(value) > 300:
        return value[:300]
    return value


def load(path):
    return trim(json.loads(path.read_text(encoding="utf-8")))


def dump(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def answer(status, headers, body):
    """An answer as the harnesses read it: status, headers, empty line, body."""
    head = "".join(f"{k}: {v}\n" for k, v in headers)
    return f"{status}\n{head}\n{body}"


def script(op, *answers):
    """A `collect` input: the operation's letter, then the answers."""
    return op + SEP.join(answers)


# Inputs that crashed a target once (docs/fuzzing.md, "Findings"), kept
# beside the seeds so that every run replays them.
REGRESSIONS = {
    "collect": {
        # A throttle whose Retry-After ends past the year 9999.
        "retry-after-past-the-year-9999": script(
            "l", answer(429, [("RateLimit-Remaining", "3"), ("Retry-After", "99999999999999")],
                        "Retry later")),
    },
    "graphql_answers": {
        # A review without a `state`: read as a submitted one, it would
        # have counted as a first response.
        "review-without-a-state": '{"data":{"repository":{"p7":{"number":7,"reviews":{"nodes":['
                                  '{"databaseId":1002,"body":"","createdAt":"2026-11-21T08:00:00Z",'
                                  '"author":{"login":"m","__typename":"User"}}]}}}}}',
    },
}


def write(target, seeds):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    for old in [*folder.glob("seed-*"), *folder.glob("regression-*")]:
        old.unlink()
    regressions = REGRESSIONS.get(target, {})
    for prefix, inputs in [("seed", seeds), ("regression", regressions)]:
        for name, data in inputs.items():
            if isinstance(data, str):
                data = data.encode("utf-8")
            (folder / f"{prefix}-{name}").write_bytes(data)


# Bodies, by host and shape.
gh = {p.stem: load(p) for p in GITHUB.glob("*.json")}
gl = {p.stem: load(p) for p in GITLAB.glob("*.json")}
gl.update({p.stem: load(p) for p in (DEMO / "gitlab").glob("*.json")})
fj = {p.stem: load(p) for p in (DEMO / "gitea").glob("*.json")}

GH_ISSUES = gh["issues.octokit-fixture-org_paginate.per_page3.page1"]
GH_ISSUES_OLD = gh["issues.betamaxpy_betamax.state_all.page1"]
GH_REPO = gh["repo.sigmavirus24_github3.py"]
GH_PULLS = gh["pulls.sigmavirus24_github3.py"]
GH_RELEASES = [gh["releases_latest.sigmavirus24_github3.py"]]
GH_MILESTONES = gh["milestones.sigmavirus24_github3.py"]
GL_PROJECT = gl["project"]
GL_MRS = gl["get_merge_requests"]
GL_ISSUES = gl["issues"]
GL_STATS = {"statistics": {"counts": {"all": 3, "closed": 1, "opened": 2}}}
FJ_REPO = fj["repo"]

# 1. Each host's bodies, every shape (and error bodies).
write(
    "github_answers",
    {
        **{name: dump(v) for name, v in gh.items()},
        "releases": dump(GH_RELEASES),
        "owner-listing": dump([gh["repo.github_linguist"], GH_REPO]),
    },
)
write(
    "forgejo_answers",
    {
        **{name: dump(v) for name, v in fj.items()},
        "owner-listing": dump([FJ_REPO]),
        "not-found": dump({"errors": None, "message": "The target couldn't be found.",
                           "url": "https://codeberg.org/api/swagger"}),
    },
)
write(
    "gitlab_answers",
    {
        **{name: dump(v) for name, v in gl.items()},
        "merge-request-list": dump([gl["merge_request_2"]]),
        "issue-list": dump([gl["issue_move"]]),
        "owner-listing": dump([GL_PROJECT]),
        "not-found": dump({"message": "404 Project Not Found"}),
        "oauth-error": dump({"error": "invalid_token", "error_description": "Token was revoked."}),
    },
)

# 2. Link headers, as each host writes them.
write(
    "link_header",
    {
        "github": '<https://api.github.com/repositories/1300192/issues?page=2>; rel="next", '
        '<https://api.github.com/repositories/1300192/issues?page=5>; rel="last"',
        "github-middle": '<https://api.github.com/repositories/1/issues?page=1>; rel="prev", '
        '<https://api.github.com/repositories/1/issues?page=3>; rel="next", '
        '<https://api.github.com/repositories/1/issues?page=5>; rel="last", '
        '<https://api.github.com/repositories/1/issues?page=1>; rel="first"',
        "gitlab": '<https://gitlab.com/api/v4/projects/8/issues?id=8&page=2&per_page=3>; rel="next", '
        '<https://gitlab.com/api/v4/projects/8/issues?id=8&page=1&per_page=3>; rel="first", '
        '<https://gitlab.com/api/v4/projects/8/issues?id=8&page=3&per_page=3>; rel="last"',
        "forgejo": '<https://codeberg.org/api/v1/repos/o/r/issues?limit=50&page=2&state=all>; rel="next",'
        '<https://codeberg.org/api/v1/repos/o/r/issues?limit=50&page=4&state=all>; rel="last"',
        "bare": "<https://h/x?page=2>; rel=next",
    },
)

# 3. Answer heads: rate limits, refusals, next pages, error bodies.
RESET = "1717243200"
write(
    "response_headers",
    {
        "github-ok": answer(200, [("x-ratelimit-limit", "5000"), ("x-ratelimit-remaining", "4987"),
                                  ("x-ratelimit-reset", RESET), ("x-ratelimit-used", "13"),
                                  ("x-ratelimit-resource", "core"),
                                  ("link", '<https://api.github.com/r?page=2>; rel="next"')], "[]"),
        "github-primary": answer(403, [("x-ratelimit-limit", "60"), ("x-ratelimit-remaining", "0"),
                                       ("x-ratelimit-reset", RESET)],
                                 dump({"message": "API rate limit exceeded for 127.0.0.1.",
                                       "documentation_url": "https://docs.github.com/rest"})),
        "github-secondary": answer(403, [("retry-after", "60")],
                                   dump({"message": "You have exceeded a secondary rate limit."})),
        "github-not-found": answer(404, [], (GITHUB / "notfound_404.repo.json").read_text()),
        "gitlab-throttled": answer(429, [("RateLimit-Limit", "2000"), ("RateLimit-Remaining", "0"),
                                         ("RateLimit-Reset", RESET), ("RateLimit-Observed", "2000"),
                                         ("RateLimit-Name", "throttle_authenticated_api"),
                                         ("Retry-After", "30")], "Retry later\n"),
        "gitlab-next-page": answer(200, [("X-Page", "1"), ("X-Per-Page", "100"), ("X-Next-Page", "2"),
                                         ("X-Prev-Page", ""), ("X-Total", "200"),
                                         ("X-Total-Pages", "2")], "[]"),
        "gitlab-field-error": answer(400, [], dump({"message": {"title": ["is too long"]}})),
        "forgejo-proxy-429": answer(429, [("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"),
                                          ("X-RateLimit-Limit", "100"),
                                          ("X-RateLimit-Remaining", "0")], "Too Many Requests"),
        "forgejo-not-found": answer(404, [("X-Total-Count", "0")],
                                    dump({"message": "The target couldn't be found.",
                                          "url": "https://codeberg.org/api/swagger"})),
    },
)


# 4. Whole collections and listings, served answer by answer.
def ok(body, *headers):
    return answer(200, list(headers), dump(body))


ETAG = ("etag", 'W/"0123456789abcdef"')
NOT_MODIFIED = answer(304, [ETAG], "")
GH_CLOSED_PULL = [dict(GH_ISSUES_OLD[0], state="closed",
                       pull_request={"url": "https://api.github.com/repos/o/n/pulls/1"})]
write(
    "collect",
    {
        "github": script(
            "g",
            ok(GH_REPO, ETAG),
            ok(GH_RELEASES, ETAG),
            ok(GH_MILESTONES, ETAG),
            ok(GH_ISSUES, ETAG, ("link", '<http://home/api/v1/repositories/1/issues?page=2>; rel="next"')),
            ok(GH_ISSUES_OLD, ETAG),
            ok(GH_PULLS[:1], ("link", '<http://home/api/v1/repositories/1/pulls?page=2>; rel="next", '
                                      '<http://home/api/v1/repositories/1/pulls?page=37>; rel="last"')),
            NOT_MODIFIED, NOT_MODIFIED, NOT_MODIFIED, NOT_MODIFIED, NOT_MODIFIED,
        ),
        "github-settle-merges": script(
            "g",
            ok(GH_REPO), ok([]), ok([]), ok(GH_CLOSED_PULL), ok([]),
            ok([{"number": GH_CLOSED_PULL[0]["number"], "merged_at": "2017-01-01T00:00:00Z",
                 "updated_at": "2017-01-02T00:00:00Z"}]),
        ),
        "github-moved": script(
            "g",
            answer(301, [("location", "http://home/api/v1/repositories/1")],
                   (GITHUB / "redirect_301.repo_moved.json").read_text()),
            ok(dict(GH_REPO, full_name="new-owner/new-name")), ok([]), ok([]), ok([]), ok([]),
        ),
        "github-rate-limited": script(
            "g",
            answer(403, [("x-ratelimit-limit", "60"), ("x-ratelimit-remaining", "0"),
                         ("x-ratelimit-reset", RESET)], dump({"message": "API rate limit exceeded"})),
            ok(GH_REPO, ("x-ratelimit-limit", "60"), ("x-ratelimit-remaining", "59"),
               ("x-ratelimit-reset", RESET)),
            answer(410, [], dump({"message": "Issues are disabled for this repo"})),
        ),
        "github-owner": script(
            "G",
            answer(404, [], dump({"message": "Not Found"})),
            ok([gh["repo.github_linguist"], GH_REPO]),
        ),
        "gitlab": script(
            "l",
            ok(GL_PROJECT, ETAG),
            ok(gl["releases"], ETAG),
            ok(gl["milestones"]),
            ok(GL_STATS),
            ok(GL_ISSUES, ("X-Next-Page", "2"), ("X-Page", "1")),
            ok([gl["issue_move"]], ("X-Next-Page", "")),
            ok(GL_MRS, ("link", '<http://home/api/v1/projects/1/merge_requests?page=2>; rel="next"')),
            ok([gl["merge_request_2"]]),
        ),
        "gitlab-throttled": script(
            "l",
            answer(429, [("RateLimit-Remaining", "3"), ("Retry-After", "1")], "Retry later"),
            ok(GL_PROJECT),
            answer(403, [], dump({"message": "403 Forbidden"})),
        ),
        "gitlab-owner": script(
            "L",
            ok([GL_PROJECT], ("X-Next-Page", "2")),
            ok([dict(GL_PROJECT, id=2, path_with_namespace="gitea/sub/other",
                     forked_from_project={"id": 1})]),
        ),
        "forgejo": script(
            "f",
            ok(FJ_REPO),
            ok(fj["releases"]),
            ok(fj["milestones"]),
            ok(fj["issues"], ("link", '<http://home/api/v1/repos/o/n/issues?page=2>; rel="next"'),
               ("X-Total-Count", "4")),
            ok(fj["pulls"]),
        ),
        "forgejo-errors": script(
            "f",
            answer(502, [], "<html>Bad gateway</html>"),
            ok(FJ_REPO),
            answer(429, [("Retry-After", "2")], "Too Many Requests"),
            ok([]), ok([]), ok([]),
        ),
        "forgejo-owner": script(
            "F",
            ok([FJ_REPO, dict(FJ_REPO, private=True)]),
        ),
    },
)

# 5. Receivers' answers: webhooks (HTTP) and SMTP servers.
CRLF = "\r\n"


def smtp(*lines):
    return CRLF.join(lines) + CRLF


write(
    "notify_answers",
    {
        "webhook-ok": "HTTP/1.1 204 No Content\r\nDate: Sat, 01 Jun 2024 12:00:00 GMT\r\n\r\n",
        "slack-ok": "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nok",
        "slack-no-service": "HTTP/1.1 404 Not Found\r\ncontent-length: 10\r\n\r\nno_service",
        "throttled": "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 30\r\ncontent-length: 0\r\n\r\n",
        "throttled-date": "HTTP/1.1 503 Service Unavailable\r\nRetry-After: Wed, 21 Oct 2015 07:28:00 GMT\r\n"
        "transfer-encoding: chunked\r\n\r\n5\r\nlater\r\n0\r\n\r\n",
        "moved": "HTTP/1.1 301 Moved Permanently\r\nLocation: https://hooks.example/new\r\n\r\n",
        "http10": "HTTP/1.0 200 OK\r\n\r\naccepted",
        "smtp-ok": smtp("220 localhost ESMTP ready", "250-localhost", "250-AUTH PLAIN LOGIN",
                        "250-8BITMIME", "250 SMTPUTF8", "235 2.7.0 Authentication successful",
                        "250 2.1.0 OK", "250 2.1.5 OK", "354 End data with <CR><LF>.<CR><LF>",
                        "250 2.0.0 OK queued", "221 2.0.0 Bye"),
        "smtp-auth-refused": smtp("220 localhost ESMTP", "250-localhost", "250 AUTH LOGIN",
                                  "334 VXNlcm5hbWU6", "334 UGFzc3dvcmQ6",
                                  "535 5.7.8 Authentication credentials invalid"),
        "smtp-rcpt-refused": smtp("220 localhost ESMTP", "250-localhost", "250 AUTH PLAIN",
                                  "235 ok", "250 ok", "550 5.1.1 <to@example.org>: Recipient unknown"),
        "smtp-busy": smtp("421 4.3.2 Service not available, closing channel"),
    },
)


# 6. Configuration files: the example `signals init` writes, the demo's,
# and every TOML block of the documentation.
def toml_blocks(path):
    text = path.read_text(encoding="utf-8")
    return re.findall(r"```toml\n(.*?)```", text, flags=re.S)


DEMO_RS = (ROOT / "crates/signals/src/demo.rs").read_text(encoding="utf-8")
configs = {
    "example": (ROOT / "crates/signals-config/signals.example.toml").read_text(encoding="utf-8"),
    "demo": re.search(r'const DEMO_CONFIG: &str = r#"(.*?)"#;', DEMO_RS, flags=re.S).group(1),
}
for doc in DOCS:
    for i, block in enumerate(toml_blocks(doc)):
        configs[f"{doc.stem.lower()}-{i + 1}"] = block
write("config_file", configs)

# 7. Request targets of `signals serve`: those docs/api.md shows, and each
# endpoint's parameters, escapes and refusals.
API_DOC = (ROOT / "docs/api.md").read_text(encoding="utf-8")
targets = sorted(set(re.findall(r"(/api/[^\s`\")|<>{}]+)", API_DOC)))
requests = {f"doc-{i + 1}": t for i, t in enumerate(targets)}
requests.update({
    "signals-all": "/api/repos/g/r/signals?kind=pull_request&state=merged&label=bug&author=a"
                   "&q=crash+on%20start&sort=updated&page=2",
    "signals-empty": "/api/repos/g/r/signals?kind=&state=&q=&sort=&page=",
    "signals-unknown": "/api/repos/g/r/signals?bogus=1&page=0",
    "trail": "/api/repos/g/r/trail?page=3",
    "trends": "/api/repos/g/r/trends",
    "history-id": "/api/signals/gitlab:g%2Fsub/p:release:v1.0%20rc/history?group=g",
    "history-host": "/api/signals/github-ghe:o/n:pull_request:7/history",
    "history-page": "/g/r/history/issue-42.html",
    "history-page-escaped": "/g/r/history/release-v1_2E0.html",
    "groups": "/api/groups",
    "metrics": "/metrics",
    "site": "/g/r/index.html?x=%E2%9C%93",
    "broken-escape": "/api/groups?q=%zz&page=%",
})
write("api_request", requests)

# 8. GitHub's GraphQL answers (issue 26): the reviews of pull requests by
# alias and a page of discussions, in the shapes GitHub documents
# (docs.github.com/graphql), with the errors a 200 answer may carry.
REVIEWS = {
    "rateLimit": {"cost": 1, "remaining": 4999, "resetAt": "2026-11-25T23:00:00Z"},
    "repository": {
        "p7": {"number": 7, "reviews": {"nodes": [
            {"databaseId": 1001, "state": "APPROVED", "body": "Looks good.",
             "submittedAt": "2026-11-20T10:00:00Z", "createdAt": "2026-11-20T09:59:00Z",
             "updatedAt": "2026-11-20T10:00:00Z", "authorAssociation": "MEMBER",
             "author": {"login": "maint", "__typename": "User"}},
            {"databaseId": 1002, "state": "PENDING", "body": "", "submittedAt": None,
             "createdAt": "2026-11-21T08:00:00Z", "updatedAt": "2026-11-21T08:00:00Z",
             "authorAssociation": "NONE", "author": {"login": "ci[bot]", "__typename": "Bot"}},
            None]}},
        "p9": None,
    },
}
DISCUSSION = {
    "number": 12, "title": "RFC: a plugin API", "body": "See #3 and o/other#4.",
    "url": "https://github.com/o/n/discussions/12", "createdAt": "2026-11-01T08:00:00Z",
    "updatedAt": "2026-11-20T10:00:00.5Z", "closed": True, "closedAt": "2026-11-20T10:00:00Z",
    "isAnswered": True, "upvoteCount": 5, "author": {"login": "alice"},
    "category": {"name": "Ideas"}, "labels": {"nodes": [{"name": "rfc"}]},
    "comments": {"totalCount": 3},
}
OPEN = {key: DISCUSSION[key] for key in
        ["number", "title", "url", "createdAt", "updatedAt", "isAnswered", "author",
         "category", "comments"]}
DISCUSSIONS = {
    "rateLimit": {"cost": 1, "remaining": 4990, "resetAt": "2026-11-25T23:00:00Z"},
    "repository": {
        "hasDiscussionsEnabled": True,
        "discussions": {"pageInfo": {"hasNextPage": True, "endCursor": "Y3Vyc29yOnYyOjE="},
                        "nodes": [DISCUSSION, {**DISCUSSION, "number": 13, "author": None,
                                               "category": None, "closed": False}, None]},
        "open": {"nodes": [OPEN]},
    },
}
graphql = {
    "errors": '{"data":null,"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded for user ID 1."}]}\n',
    "not-found": '{"data":{"repository":null},"errors":[{"type":"NOT_FOUND","path":["repository"],"message":"Could not resolve to a Repository with the name \'o/n\'."}]}\n',
    "reviews": dump({"data": REVIEWS}),
    "discussions": dump({"data": DISCUSSIONS}),
    "discussions-off": dump({"data": {"rateLimit": DISCUSSIONS["rateLimit"], "repository": {
        "hasDiscussionsEnabled": False, "discussions": None}}}),
}
graphql["heads"] = dump({"data": {
    "rateLimit": {"cost": 1, "remaining": 4999, "resetAt": "2026-11-25T23:00:00Z"},
    "r0": {"hasDiscussionsEnabled": True,
           "discussions": {"nodes": [{"updatedAt": "2026-11-20T10:00:00Z"}]}},
    "r1": None,
    "r2": {"hasDiscussionsEnabled": False, "discussions": {"nodes": []}}},
    "errors": [{"type": "NOT_FOUND", "path": ["r1"], "message": "Could not resolve"}]})
write("graphql_answers", graphql)

# 9. Comment lists (issue 26): a page of GitHub's `issues/comments` and
# `pulls/comments` and of GitLab's notes, in the shapes their API
# documentation shows, with a bot, a deleted account and a system note.
ISSUE_COMMENT = {
    "id": 1, "node_id": "IC_1", "html_url": "https://github.com/o/n/issues/7#issuecomment-1",
    "issue_url": "https://api.github.com/repos/o/n/issues/7", "body": "Same here, see #3.",
    "user": {"login": "bob", "id": 2, "type": "User"}, "author_association": "CONTRIBUTOR",
    "created_at": "2026-11-20T10:00:00Z", "updated_at": "2026-11-20T10:05:00Z",
}
REVIEW_COMMENT = {
    "id": 10, "pull_request_review_id": 100, "diff_hunk": "@@ -1 +1 @@", "path": "src/lib.rs",
    "html_url": "https://github.com/o/n/pull/8#discussion_r10",
    "pull_request_url": "https://api.github.com/repos/o/n/pulls/8", "body": "Nit.",
    "user": {"login": "dependabot[bot]", "id": 3, "type": "Bot"},
    "author_association": "NONE", "created_at": "2026-11-21T10:00:00Z",
    "updated_at": "2026-11-21T10:00:00Z",
}
NOTE = {
    "id": 301, "type": None, "body": "Fixed in !4.", "attachment": None,
    "author": {"id": 1, "username": "root", "name": "Administrator", "state": "active"},
    "created_at": "2026-11-20T10:00:00.123Z", "updated_at": "2026-11-20T10:00:00.123Z",
    "system": False, "noteable_id": 377, "noteable_type": "Issue", "noteable_iid": 7,
}
comment_lists = {
    "github-issue-comments": dump([ISSUE_COMMENT, {**ISSUE_COMMENT, "id": 2, "user": None}]),
    "github-review-comments": dump([REVIEW_COMMENT]),
    "gitlab-notes": dump([NOTE, {**NOTE, "id": 302, "system": True,
                                 "body": "changed the milestone"}]),
    "empty": "[]",
}
write("comment_lists", comment_lists)
