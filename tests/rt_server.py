"""A real Request Tracker 5 on loopback, with its REST2 API and an auth token, for tests.

``RTServer`` runs Debian's RT 5 (bookworm: ``request-tracker5``, ``rt5-db-sqlite`` and
``rt5-standalone``, RT 5.0.3) as its standalone web server, bound to 127.0.0.1 on a free port,
on an SQLite database of its own under ``root``. Nothing under /etc or /var is used or
changed: RT reads its site configuration from the file named by ``RT_SITE_CONFIG`` and its
``RT_SiteConfig.d`` from ``RT_SITE_CONFIG_DIR``, which here point at ``root``. The second
matters as much as the first: without it RT would also load Debian's snippets from
/etc/request-tracker5/RT_SiteConfig.d after ours, and those name another database.

Layout under ``root``:

* ``RT_SiteConfig.pm`` and an empty ``RT_SiteConfig.d/``: this instance's configuration;
* ``rt.sqlite``: the database;
* ``log/rt.log``: RT's own log at debug level, the first place to look when a test fails;
* ``rt-server.log``: the web server's stdout and stderr; ``access.log``: one line a request;
* ``var/*.mbox``: every mail RT would have sent (``$MailCommand`` is ``'mbox'``, so nothing
  reaches an MTA; the autoreply to a new ticket's requestor lands here, for example);
* ``mason_data/`` and ``session_data/``: RT's compiled templates and web sessions, kept here
  rather than in the shared /var/cache/request-tracker5.

Setting up a database takes RT a couple of seconds, so the first ``start()`` in a test run
builds one in a temporary directory and later starts copy that file. The copy is a fresh
database all the same: no server has ever opened it. The template also grants the
"Privileged" group the right to own tickets, so that ``create_ticket(owner=...)`` works for
users made by ``create_user`` (RT otherwise drops an owner who lacks the right, with no error
in the REST response, only a warning in the log).

Each start then creates its own auth token for the user ``root`` (a superuser), with a short
Perl script that loads RT with the same configuration; REST2 has no call that makes tokens.
The script runs while the web server boots, so it costs no time.

Usage::

    with RTServer(tmp_path / "rt") as rt:
        queue_id = rt.create_queue("Support")
        ticket_id = rt.create_ticket("Support", "Printer on fire", "alice@example.com")
        status, headers, ticket = rt.rest("GET", f"ticket/{ticket_id}")
        assert headers["etag"]
"""

from __future__ import annotations

import atexit
import functools
import http.client
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from email.message import Message
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from process_group import free_ports, stop_group
from waiting import HANG_S

# Debian installs RT 5 under its own versioned names, so an RT 4 installed beside it (whose
# unversioned alternatives could point elsewhere) does not get in the way.
RT_HOME = Path("/usr/share/request-tracker5")
RT_LIB = RT_HOME / "lib"
RT_LOCAL_LIB = Path("/usr/local/share/request-tracker5/lib")
RT_SERVER = RT_HOME / "libexec" / "rt-server"
RT_SETUP_DATABASE = Path("/usr/sbin/rt-setup-database-5")
PERL = "/usr/bin/perl"

REST_PATH = "/REST/2.0/"

# Starlet forks this many workers; two let a test make a request while another is running
# without paying for ten idle RT processes (its default).
DEFAULT_WORKERS = 2

# Deadlines that only report a hang (tests/waiting.py): a busy machine is slow, not broken.
_REQUEST_TIMEOUT_S = HANG_S
# While waiting for the server, a listener that accepts but never answers must not hold us.
_PROBE_TIMEOUT_S = 2.0
_PERL_TIMEOUT_S = HANG_S
_STOP_GRACE_S = 10.0
_POLL_S = 0.1
_LOG_TAIL_CHARS = 4000
# A free port can be taken by someone else between our probe and RT's bind; RT then exits
# saying so, and we try again on another port.
_PORT_ATTEMPTS = 3
_BIND_FAILURE = "couldn't start up a web server"

# Proxy settings would send our loopback requests to a proxy that cannot reach 127.0.0.1.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
_PROXY_VARIABLES = frozenset(
    {"http_proxy", "https_proxy", "all_proxy", "no_proxy"}
    | {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"}
)
# RT changes its behaviour under its own test suite's variables (warnings stashed into
# responses, formatters rebuilt on every call); a developer's shell must not switch that on.
# The two site-config variables are set for each instance, never inherited.
_RT_VARIABLES = frozenset({"RT_TESTING", "HARNESS_ACTIVE", "RT_SITE_CONFIG", "RT_SITE_CONFIG_DIR"})

# What every Perl helper script starts with: RT's libraries (local overrides first, as
# rt-server orders them), then RT loaded with this instance's configuration.
_PERL_PRELUDE = f"""
use strict;
use warnings;
use lib '{RT_LOCAL_LIB}', '{RT_LIB}';
use RT;
RT->LoadConfig;
RT->Init;
"""

# Rights for every privileged user, granted once in the template database. Owning tickets is
# what create_ticket(owner=...) needs; seeing queues and tickets lets a test that acts as such
# a user (with a token of its own, made by run_perl) see what it owns.
_PRIVILEGED_RIGHTS = ("OwnTicket", "SeeQueue", "ShowTicket")
_GRANT_RIGHTS_SCRIPT = """
my $group = RT::Group->new(RT->SystemUser);
my ($found, $why) = $group->LoadSystemInternalGroup('Privileged');
die "no Privileged group: $why\\n" unless $group->Id;
for my $right (@ARGV) {
    my ($ok, $msg) = $group->PrincipalObj->GrantRight(Right => $right, Object => RT->System);
    die "granting $right: $msg\\n" unless $ok;
}
print "ok\\n";
"""

# RT::AuthToken->Create returns (id, message, token); the token is shown only this once,
# since the database keeps just its hash.
_CREATE_TOKEN_SCRIPT = """
my $root = RT::User->new(RT->SystemUser);
$root->Load('root');
die "no root user\\n" unless $root->Id;
my $token = RT::AuthToken->new(RT->SystemUser);
my ($id, $msg, $secret) = $token->Create(Owner => $root->Id, Description => $ARGV[0]);
die "creating an auth token: $msg\\n" unless $id;
print "$secret\\n";
"""

_REVOKE_TOKENS_SCRIPT = """
my $tokens = RT::AuthTokens->new(RT->SystemUser);
$tokens->Limit(FIELD => 'Description', VALUE => $ARGV[0]);
my $count = 0;
while (my $token = $tokens->Next) {
    my ($ok, $msg) = $token->Delete;
    die "revoking a token: $msg\n" unless $ok;
    $count++;
}
print "$count\n";
"""

# REST2 in RT 5.0.3 can create a custom field but not apply it to a queue, so both happen here.
_CREATE_CUSTOM_FIELD_SCRIPT = """
my ($name, $type, $queue_name) = @ARGV;
my $cf = RT::CustomField->new(RT->SystemUser);
my ($id, $msg) = $cf->Create(
    Name => $name, Type => $type, LookupType => RT::Ticket->CustomFieldLookupType,
);
die "creating custom field $name: $msg\\n" unless $id;
# A queue object with no id stands for "all queues" when a custom field is applied.
my $queue = RT::Queue->new(RT->SystemUser);
if (length $queue_name) {
    $queue->Load($queue_name);
    die "no queue $queue_name\\n" unless $queue->Id;
}
my ($ok, $why) = $cf->AddToObject($queue);
die "applying custom field $name: $why\\n" unless $ok;
print "$id\\n";
"""

_CREATED_ID = re.compile(r"/(\d+)/?$")


class RTError(RuntimeError):
    """RT refused or failed to do what a helper asked; the message says what RT answered."""


def rt_available() -> bool:
    """Whether RT 5, its SQLite driver and its standalone server are installed.

    Cheap enough for test collection: a few file checks, then (once per run) one Perl
    start that loads the two modules whose place on disk depends on the architecture.
    """
    return (
        RT_SERVER.is_file()
        and RT_SETUP_DATABASE.is_file()
        and (RT_LIB / "RT.pm").is_file()
        and Path(PERL).is_file()
        and _perl_modules_load()
    )


@functools.cache
def _perl_modules_load() -> bool:
    try:
        result = subprocess.run(
            [PERL, "-MDBD::SQLite", "-MPlack::Handler::Starlet", "-e", "1"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=HANG_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0


class RTServer:
    """One RT 5 instance on 127.0.0.1 with a fresh SQLite database under ``root``.

    Use it as a context manager, or call ``start()`` and ``stop()``; ``stop()`` is safe to
    call more than once. After ``start()``, ``rest()`` calls the REST2 API as ``root`` with
    the instance's auth token, and the ``create_*`` helpers seed it.
    """

    def __init__(self, root: Path, *, workers: int = DEFAULT_WORKERS) -> None:
        self.root = Path(root).resolve()
        self.workers = workers
        self.config_path = self.root / "RT_SiteConfig.pm"
        self.config_dir = self.root / "RT_SiteConfig.d"
        self.database_path = self.root / "rt.sqlite"
        self.log_path = self.root / "log" / "rt.log"
        self.server_log_path = self.root / "rt-server.log"
        self.access_log_path = self.root / "access.log"
        self.mail_dir = self.root / "var"
        self._port = 0
        self._token = ""
        self._process: subprocess.Popen[bytes] | None = None
        self._server_log: IO[bytes] | None = None
        self._started = False

    # -- what a test reads ---------------------------------------------------------------

    @property
    def port(self) -> int:
        """The loopback port the web server listens on."""
        self._require_started()
        return self._port

    @property
    def web_url(self) -> str:
        """The web UI's root, for example ``http://127.0.0.1:40123/``."""
        return f"http://127.0.0.1:{self.port}/"

    @property
    def base_url(self) -> str:
        """The REST2 API's root, for example ``http://127.0.0.1:40123/REST/2.0/``."""
        return f"http://127.0.0.1:{self.port}{REST_PATH}"

    @property
    def token(self) -> str:
        """The auth token of the user ``root``, for ``Authorization: token <token>``."""
        self._require_started()
        return self._token

    def log_tail(self) -> str:
        """The ends of RT's log and the web server's output, to explain a failure."""
        parts = []
        for path in (self.log_path, self.server_log_path):
            try:
                text = path.read_text(errors="replace")[-_LOG_TAIL_CHARS:]
            except OSError:
                text = "(none)"
            parts.append(f"--- {path}:\n{text}")
        return "\n".join(parts)

    # -- lifecycle -----------------------------------------------------------------------

    def start(self, timeout_s: float = 2 * HANG_S) -> None:
        """Create the database, start the web server and make the token; return when ready.

        Raises ``TimeoutError`` (with the logs' tails) if the server does not answer REST2
        within ``timeout_s``, or ``RTError`` if a step fails. Either way nothing is left
        running.
        """
        if self._started:
            raise RuntimeError("RTServer is already started")
        if not rt_available():
            raise RuntimeError(
                "Request Tracker 5 is not installed "
                "(apt-get install request-tracker5 rt5-db-sqlite rt5-standalone)"
            )
        deadline = time.monotonic() + timeout_s
        self._started = True
        # If the test run dies without calling stop(), the server must still go.
        atexit.register(self.stop)
        try:
            for directory in (self.config_dir, self.log_path.parent, self.mail_dir):
                directory.mkdir(parents=True, exist_ok=True)
            for name in ("mason_data", "session_data"):
                (self.root / name).mkdir(exist_ok=True)
            shutil.copyfile(_template_database(deadline), self.database_path)
            self._start_server_and_token(deadline)
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the web server and its workers (politely, then by force) and wait for them."""
        if self._process is not None:
            # Starlet's master stops its workers on SIGTERM. Not SIGINT: rt-server running as
            # root answers that by chown-ing /var/lib/request-tracker5 to www-data.
            stop_group(self._process, _STOP_GRACE_S)
            self._process = None
        if self._server_log is not None:
            self._server_log.close()
            self._server_log = None
        if self._started:
            atexit.unregister(self.stop)
            self._started = False

    def halt(self) -> None:
        """Kill the web server only, as a crash or an administrator's restart does: the
        database stays, and resume() brings the same RT back on the same port."""
        self._require_started()
        if self._process is not None:
            stop_group(self._process, 0.0)
            self._process = None

    def resume(self, timeout_s: float = 2 * HANG_S) -> None:
        self._require_started()
        if self._process is not None:
            return
        self._launch(self._environment())
        if not self._wait_until_answering(time.monotonic() + timeout_s):
            raise RTError(f"rt-server did not come back\n{self.log_tail()}")

    def new_token(self, description: str) -> str:
        """Another auth token for root (what a person makes in RT when theirs was revoked)."""
        return self.run_perl(_CREATE_TOKEN_SCRIPT, description).strip()

    def revoke_tokens(self, description: str) -> int:
        """Revoke root's tokens with this description; how many."""
        return int(self.run_perl(_REVOKE_TOKENS_SCRIPT, description).strip() or 0)

    def __enter__(self) -> RTServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # -- REST2 ---------------------------------------------------------------------------

    def rest(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        *,
        params: Mapping[str, str | int] | None = None,
        timeout_s: float = _REQUEST_TIMEOUT_S,
    ) -> tuple[int, dict[str, str], Any]:
        """Call the REST2 API as ``root``; return (status, headers, decoded body).

        ``path`` is relative to ``base_url`` (``"ticket/1"``, ``"tickets"``), or starts with
        ``/REST/2.0/`` (as in a Location header), or is a full URL such as a ``next_page``
        link from a listing. ``params`` become the query string.
        ``body``, unless None, is sent as JSON. Header names in the result are lower case
        (``"etag"``, ``"location"``). The body is the parsed JSON when RT sends JSON, else
        text, or None when empty. Error statuses (404, 412, ...) are returned, not raised.
        """
        if path.startswith(("http://", "https://")):
            url = path
        elif path.startswith(REST_PATH):
            # As RT writes it in Location headers: /REST/2.0/ticket/7.
            url = f"http://127.0.0.1:{self.port}{path}"
        else:
            url = self.base_url + path.lstrip("/")
        if params:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(
                {key: str(value) for key, value in params.items()}
            )
        send_headers = {"Authorization": f"token {self.token}", "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            send_headers["Content-Type"] = "application/json"
        send_headers.update(headers or {})
        request = urllib.request.Request(url, data=data, headers=send_headers, method=method)
        try:
            with _OPENER.open(request, timeout=timeout_s) as response:
                return _decode(response.status, response.headers, response.read())
        except urllib.error.HTTPError as error:
            with error:
                return _decode(error.code, error.headers, error.read())

    def search_tickets(
        self,
        query: str,
        fields: Sequence[str] = (),
        *,
        order_by: str = "id",
        order: str = "ASC",
        per_page: int = 100,
    ) -> list[dict[str, Any]]:
        """All tickets that match a TicketSQL ``query``, following REST2's pages.

        Each item has ``id``, ``type`` and ``_url``, plus the named ``fields``. RT's default
        order is not stable, so an order is always given.
        """
        params: dict[str, str | int] = {
            "query": query,
            "orderby": order_by,
            "order": order,
            "per_page": per_page,
        }
        if fields:
            params["fields"] = ",".join(fields)
        items: list[dict[str, Any]] = []
        status, _, page = self.rest("GET", "tickets", params=params)
        while True:
            if status != 200:
                raise RTError(f"searching tickets for {query!r}: {status} {page!r}")
            items.extend(page["items"])
            next_page = page.get("next_page")
            if not next_page:
                return items
            status, _, page = self.rest("GET", next_page)

    # -- seeding -------------------------------------------------------------------------

    def create_queue(self, name: str, description: str = "") -> int:
        """Create a queue and return its id."""
        return self._create("queue", {"Name": name, "Description": description})

    def create_user(self, name: str, real_name: str, email: str, *, privileged: bool = True) -> int:
        """Create a user and return its id.

        Users are privileged by default: the template database grants the right to own
        tickets to the Privileged group, so only privileged users can be a ticket's owner.
        """
        return self._create(
            "user",
            {
                "Name": name,
                "RealName": real_name,
                "EmailAddress": email,
                "Privileged": 1 if privileged else 0,
            },
        )

    def create_ticket(
        self,
        queue: str,
        subject: str,
        requestor: str,
        owner: str | None = None,
        priority: int | None = None,
        status: str | None = None,
        content: str | None = None,
    ) -> int:
        """Create a ticket and return its id; ``owner`` is a user name, ``queue`` a name.

        RT answers "201 Created" even when it drops a value it did not accept (an owner
        without the right to own tickets, a status the lifecycle forbids at creation), so
        the ticket is read back and ``RTError`` raised if it differs. A status that RT's
        default lifecycle does not allow at creation (``stalled``, ``rejected``) is set by
        a second request, as a person would.
        """
        fields: dict[str, Any] = {"Queue": queue, "Subject": subject, "Requestor": requestor}
        if owner is not None:
            fields["Owner"] = owner
        if priority is not None:
            fields["Priority"] = priority
        if status is not None and status in ("new", "open", "resolved"):
            fields["Status"] = status
        if content is not None:
            fields["Content"] = content
            fields["ContentType"] = "text/plain"
        ticket_id = self._create("ticket", fields)
        if status is not None and "Status" not in fields:
            code, _, answer = self.rest("PUT", f"ticket/{ticket_id}", {"Status": status})
            if code != 200:
                raise RTError(f"setting ticket {ticket_id} to {status!r}: {code} {answer!r}")
        if owner is not None or priority is not None or status is not None:
            self._check_ticket(ticket_id, owner, priority, status)
        return ticket_id

    def create_custom_field(
        self, name: str, queue: str | None = None, cf_type: str = "FreeformSingle"
    ) -> int:
        """Create a ticket custom field, apply it to ``queue`` (or all queues), return its id.

        ``cf_type`` is RT's type with its cardinality: ``FreeformSingle``,
        ``FreeformMultiple``, ``SelectSingle``, ``SelectMultiple``, ``Text``, ``Date``, ...
        On tickets it then shows up in REST2 as ``CustomFields: [{"id", "name", "values"}]``
        and is set with ``{"CustomFields": {name: value}}``.
        """
        output = self.run_perl(_CREATE_CUSTOM_FIELD_SCRIPT, name, cf_type, queue or "")
        return int(output.split()[-1])

    def run_perl(self, code: str, *args: str, timeout_s: float = _PERL_TIMEOUT_S) -> str:
        """Run Perl with RT loaded and this instance's configuration; return its stdout.

        For seeding what REST2 cannot do. ``args`` arrive in ``@ARGV``; ``RT->SystemUser``
        may do anything. It may run while the web server does: SQLite serialises the writes
        (DBD::SQLite waits up to 30 s for a lock). Raises ``RTError`` if the script fails.
        """
        return _run_perl(self._environment(), self.root, code, args, timeout_s)

    # -- internals -----------------------------------------------------------------------

    def _create(self, kind: str, fields: dict[str, Any]) -> int:
        status, headers, answer = self.rest("POST", kind, fields)
        if status != 201:
            raise RTError(f"creating {kind} {fields!r}: {status} {answer!r}")
        # The body's id is a name for users ("alice"), but Location always ends in the
        # number: /REST/2.0/user/51.
        match = _CREATED_ID.search(headers.get("location", ""))
        if match is None:
            raise RTError(f"creating {kind}: no id in Location {headers.get('location')!r}")
        return int(match.group(1))

    def _check_ticket(
        self, ticket_id: int, owner: str | None, priority: int | None, status: str | None
    ) -> None:
        code, _, ticket = self.rest("GET", f"ticket/{ticket_id}")
        if code != 200:
            raise RTError(f"reading ticket {ticket_id} back: {code} {ticket!r}")
        wrong = []
        if owner is not None and ticket["Owner"]["id"] != owner:
            wrong.append(f"owner {ticket['Owner']['id']!r}, not {owner!r}")
        # REST2 sends numbers as strings ("Priority": "5").
        if priority is not None and str(ticket["Priority"]) != str(priority):
            wrong.append(f"priority {ticket['Priority']!r}, not {priority!r}")
        if status is not None and ticket["Status"] != status:
            wrong.append(f"status {ticket['Status']!r}, not {status!r}")
        if wrong:
            raise RTError(
                f"RT created ticket {ticket_id} with {', '.join(wrong)} "
                f"(see {self.log_path} for why)"
            )

    def _start_server_and_token(self, deadline: float) -> None:
        environment = self._environment()
        for attempt in range(1, _PORT_ATTEMPTS + 1):
            self._port = free_ports(1)[0]
            self.config_path.write_text(_site_config(self.root, self._port))
            output_before = len(self._server_output())
            self._launch(environment)
            if attempt == 1:
                # Made while the server boots, in the database it boots from: the server
                # only reads it then, and SQLite makes any reader wait out the one insert.
                self._token = _run_perl(
                    environment,
                    self.root,
                    _CREATE_TOKEN_SCRIPT,
                    ("understudy tests",),
                    max(deadline - time.monotonic(), 1.0),
                ).strip()
            if self._wait_until_answering(deadline):
                break
            # The server exited: on a port someone took after we chose it, try another.
            assert self._process is not None
            self._process.wait()
            self._process = None
            said = self._server_output()[output_before:]
            if _BIND_FAILURE not in said or attempt == _PORT_ATTEMPTS:
                raise RTError(f"rt-server exited while starting\n{self.log_tail()}")

    def _launch(self, environment: dict[str, str]) -> None:
        if self._server_log is None:
            self._server_log = self.server_log_path.open("ab")
        self._process = subprocess.Popen(
            [
                str(RT_SERVER),
                # rt-server picks Starlet (prefork) too, but says so only by its name.
                "--server",
                "Starlet",
                "--host",
                "127.0.0.1",
                "--port",
                str(self._port),
                "--max-workers",
                str(self.workers),
                "--access-log",
                str(self.access_log_path),
            ],
            cwd=self.root,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=self._server_log,
            stderr=subprocess.STDOUT,
            # Its own process group, so stop() reaches the workers too, and a Ctrl+C in the
            # terminal reaches only the test runner (which then stops the server).
            start_new_session=True,
        )

    def _wait_until_answering(self, deadline: float) -> bool:
        """True once our RT answers REST2 with the token; False if the server exits first.

        Asking with the token, rather than for any HTTP answer, tells our RT from another
        program that took the port after we chose it (RT then exits, and we try again).
        """
        assert self._process is not None
        last = "no answer yet"
        while True:
            if self._process.poll() is not None:
                return False
            try:
                status, _, answer = self.rest("GET", "rt", timeout_s=_PROBE_TIMEOUT_S)
            # Refused while RT boots; or a stranger on the port that is silent or not HTTP.
            except (OSError, http.client.HTTPException) as error:
                last = repr(error)
            else:
                if status == 200 and isinstance(answer, dict) and "Version" in answer:
                    return True
                last = f"{status} {answer!r}"
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"rt-server did not answer REST2 in time (last: {last})\n{self.log_tail()}"
                )
            time.sleep(_POLL_S)

    def _server_output(self) -> str:
        try:
            return self.server_log_path.read_bytes().decode(errors="replace")
        except OSError:
            return ""

    def _environment(self) -> dict[str, str]:
        return _environment_for(self.root)

    def _require_started(self) -> None:
        if not self._started or not self._port:
            raise RuntimeError("RTServer is not started")


# -- the template database -------------------------------------------------------------

_template_lock = threading.Lock()
_template_dir: Path | None = None


def _template_database(deadline: float) -> Path:
    """A freshly set-up RT database that no server has opened, built once per test run."""
    global _template_dir
    with _template_lock:
        if _template_dir is not None:
            return _template_dir / "rt.sqlite"
        directory = Path(tempfile.mkdtemp(prefix="rt-template-"))
        atexit.register(shutil.rmtree, directory, ignore_errors=True)
        try:
            (directory / "RT_SiteConfig.d").mkdir()
            (directory / "log").mkdir()
            # The port is never used: no server runs on the template.
            (directory / "RT_SiteConfig.pm").write_text(_site_config(directory, 1))
            environment = _environment_for(directory)
            try:
                setup = subprocess.run(
                    [str(RT_SETUP_DATABASE), "--action", "init"],
                    cwd=directory,
                    env=environment,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=max(deadline - time.monotonic(), 1.0),
                    check=False,
                )
            except subprocess.TimeoutExpired as error:
                raise TimeoutError("rt-setup-database did not finish in time") from error
            output = (setup.stdout + setup.stderr).decode(errors="replace")
            # It reports some failures only in words, so "Done inserting data" is the proof.
            if setup.returncode != 0 or "Done inserting data" not in output:
                raise RTError(f"rt-setup-database failed ({setup.returncode}):\n{output}")
            _run_perl(
                environment,
                directory,
                _GRANT_RIGHTS_SCRIPT,
                _PRIVILEGED_RIGHTS,
                max(deadline - time.monotonic(), 1.0),
            )
        except BaseException:
            shutil.rmtree(directory, ignore_errors=True)
            raise
        _template_dir = directory
        return directory / "rt.sqlite"


# -- helpers ---------------------------------------------------------------------------


def _site_config(root: Path, port: int) -> str:
    """RT_SiteConfig.pm for an instance living in ``root`` and listening on ``port``."""

    def text(value: str | Path) -> str:
        escaped = str(value).replace("\\", "\\\\").replace("'", "\\'")
        return f"'{escaped}'"

    return f"""# Written by tests/rt_server.py for one test's RT instance.
# RT's own state directories, which its build put under /var: assigned here, before RT
# uses any of them, so this instance keeps everything under {root}.
$RT::VarPath = {text(root / "var")};
$RT::MasonDataDir = {text(root / "mason_data")};
$RT::MasonSessionDir = {text(root / "session_data")};

Set($rtname, 'understudy-test');
Set($Organization, 'understudy-tests');
Set($CorrespondAddress, 'rt@localhost');
Set($CommentAddress, 'rt-comment@localhost');

Set($WebDomain, 'localhost');
Set($WebPort, {port});
Set($WebPath, '');
Set($WebBaseURL, 'http://127.0.0.1:{port}');

Set($DatabaseType, 'SQLite');
Set($DatabaseName, {text(root / "rt.sqlite")});

# Dates in TicketSQL ("LastUpdated > '2024-05-01 12:00:00'") are read in this zone.
Set($Timezone, 'UTC');

Set($LogToSyslog, undef);
Set($LogToSTDERR, 'error');
Set($LogToFile, 'debug');
Set($LogDir, {text(root / "log")});
Set($LogToFileNamed, 'rt.log');

# Outgoing mail goes to $RT::VarPath/<start time>.mbox, never to an MTA.
Set($MailCommand, 'mbox');

# RT checks the auth token's bcrypt hash on every REST request; at the default cost (12)
# that alone takes about 250 ms a request. 4 is the least bcrypt allows, and plenty for a
# throwaway instance on loopback.
Set($BcryptCost, 4);

1;
"""


def _environment_for(root: Path) -> dict[str, str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in _PROXY_VARIABLES and key not in _RT_VARIABLES
    }
    environment["RT_SITE_CONFIG"] = str(root / "RT_SiteConfig.pm")
    environment["RT_SITE_CONFIG_DIR"] = str(root / "RT_SiteConfig.d")
    return environment


def _run_perl(
    environment: dict[str, str],
    cwd: Path,
    code: str,
    args: Sequence[str],
    timeout_s: float,
) -> str:
    try:
        result = subprocess.run(
            [PERL, "-e", _PERL_PRELUDE + code, "--", *args],
            cwd=cwd,
            env=environment,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        raise TimeoutError(f"RT Perl script did not finish in {timeout_s:.0f} s") from error
    if result.returncode != 0:
        raise RTError(
            f"RT Perl script failed ({result.returncode}):\n"
            f"{result.stderr.decode(errors='replace')[-_LOG_TAIL_CHARS:]}"
        )
    return result.stdout.decode()


def _decode(status: int, headers: Message, raw: bytes) -> tuple[int, dict[str, str], Any]:
    flat: dict[str, str] = {}
    for name, value in headers.items():
        key = name.lower()
        flat[key] = f"{flat[key]}, {value}" if key in flat else value
    body: Any = None
    if raw.strip():
        text = raw.decode("utf-8", errors="replace")
        if "json" in flat.get("content-type", ""):
            try:
                body = json.loads(text)
            except ValueError:
                body = text
        else:
            body = text
    return status, flat, body
