"""One side of one described conversation, sans I/O (docs/PROTOCOL-DESCRIPTIONS.md, "Engines").

A `Party` is asked for its next outgoing message (`next_message()`: bytes for tcp, a request or
response dict for http, None when it is not its turn) or given the peer's (`receive(msg)`, which
raises `Refused` with the reason). Framing and sockets are someone else's (framing.py, server.py).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Union

from cryptography.hazmat.primitives.asymmetric import rsa

from .. import aes_https, rsa_keys
from .description import TOY_BITS, Conversation, Description, DescriptionError, Step
from .values import Context, Refused, agree, build, check_stated_length, known_length, make_key, new_secret, parse

Message = Union[bytes, dict[str, Any]]
DEFAULT_CONFIG = {"username": "user", "password": "password"}  # the reference servers' default account


class Party:
    def __init__(self, description: Description, conversation_name: Optional[str], role: str, *,
                 private_keys: Optional[Mapping[str, rsa.RSAPrivateKey]] = None,
                 known_public_keys: Optional[Mapping[str, rsa.RSAPublicKey]] = None,
                 secrets: Optional[Mapping[str, bytes]] = None, message: Optional[bytes] = None,
                 config: Optional[Mapping[str, str]] = None) -> None:
        if role not in ("client", "server"):
            raise ValueError(f"role must be client or server, not {role!r}")
        if conversation_name is None and role == "client":
            raise ValueError("a client names its conversation")
        self.description = description
        self.role = role
        self._private = dict(private_keys or {})
        for spec in description.keys:  # make the keys this side holds and was not given
            if spec.holder == role and spec.name not in self._private:
                self._private[spec.name] = make_key(description, spec.name)
        self._public = {name: key.public_key() for name, key in self._private.items()}
        for name, key in (known_public_keys or {}).items():
            self._public.setdefault(name, key)
        for spec in description.keys:
            if spec.preshared and spec.name not in self._public:
                raise ValueError(f"key {spec.name!r} is preshared: pass its public key in known_public_keys")
            if spec.type == "rsa" and spec.bits in TOY_BITS and spec.name in self._public:
                n = self._public[spec.name].public_numbers().n
                if not rsa_keys.TOY_MIN_N <= n <= rsa_keys.TOY_MAX_N:
                    raise ValueError(f"key {spec.name!r} is a toy key (bits {spec.bits}): its n must be "
                                     f"{rsa_keys.TOY_MIN_N} to {rsa_keys.TOY_MAX_N}; this one has {n.bit_length()} bits")
        self._secrets = dict(secrets or {})
        for s in description.secrets:
            if s.name not in self._secrets:
                if s.made_by == role:
                    self._secrets[s.name] = new_secret(description, s.name)
                elif s.made_by == "preshared":
                    raise ValueError(f"secret {s.name!r} is preshared: pass it in secrets")
                elif s.made_by == "agreement":  # known from the start when the other key is preshared
                    try:
                        agreed = agree(description, s.name, role, self._private, self._public)
                    except Refused as exc:
                        raise ValueError(exc.reason) from None
                    if agreed is not None:
                        self._secrets[s.name] = agreed
        self._message = message
        self._config = {**DEFAULT_CONFIG, **(config or {})}
        self.conversation: Optional[Conversation] = None
        self._ctx: Optional[Context] = None
        self._i = 0
        self.done = False
        self.refusal: Optional[Refused] = None
        if conversation_name is None and len(description.conversations) == 1:
            conversation_name = description.conversations[0].name  # nothing to choose (and a server may speak first)
        if conversation_name is not None:
            self._choose(description.conversation(conversation_name))

    # ---- state -----------------------------------------------------------------------------------

    def _context(self, conv: Conversation) -> Context:
        message = self._message if self._message is not None else conv.message
        return Context(self.description, conv, self.role, dict(self._private), dict(self._public),
                       dict(self._secrets), dict(self._config), message=message,
                       expect_message=message is not None)

    def _choose(self, conv: Conversation, ctx: Optional[Context] = None) -> None:
        self.conversation = conv
        self._ctx = ctx or self._context(conv)

    @property
    def received(self) -> dict[str, Any]:
        return self._ctx.received if self._ctx is not None else {}

    @property
    def issued_tokens(self) -> frozenset[str]:
        """The tokens this (server) party has issued: an HTTP shell routes later requests by them."""
        return frozenset(self._ctx.issued) if self._ctx is not None else frozenset()

    @property
    def private_keys(self) -> dict[str, rsa.RSAPrivateKey]:
        return dict(self._private)

    @property
    def secrets(self) -> dict[str, bytes]:
        return dict(self._ctx.secrets if self._ctx is not None else self._secrets)

    def _step(self) -> Optional[Step]:
        if self.done or self.conversation is None or self._i >= len(self.conversation.steps):
            return None
        return self.conversation.steps[self._i]

    def _advance(self, step: Step) -> None:
        self._i += 1
        assert self.conversation is not None
        if step.close or self._i >= len(self.conversation.steps):
            self.done = True

    def expected_length(self) -> Optional[int]:
        """The length of the peer's next message when it is known beforehand (legacy framing takes
        exactly that many bytes), else None."""
        step = self._step()
        if step is None or step.sender == self.role or step.send is None or self._ctx is None:
            return None
        return known_length(step.send, self._ctx)

    def is_my_turn(self) -> bool:
        step = self._step()
        return step is not None and step.sender == self.role

    # ---- sending ---------------------------------------------------------------------------------

    def next_message(self) -> Optional[Message]:
        """This side's next message, or None (not its turn, or done)."""
        step = self._step()
        if step is None or step.sender != self.role:
            return None
        ctx = self._ctx
        assert ctx is not None
        try:
            out = self._build(step, ctx)
        except Refused as exc:
            self._refuse(exc)
            raise
        if isinstance(out, bytes):
            ctx.message_sent = out  # what a repeat = "received" answer must be
        self._advance(step)
        return out

    def _build(self, step: Step, ctx: Context) -> Message:
        if not self.description.transport.is_http:
            assert step.send is not None
            return build(step.send, ctx)
        headers = {name: build(v, ctx).decode("utf-8", "surrogateescape") for name, v in step.headers}
        body = build(step.body, ctx) if step.body is not None else b""
        if step.body is not None and step.body.kind == "json":
            headers.setdefault("content-type", "application/json")
        if step.body is not None and step.body.kind == "form":
            headers.setdefault("content-type", "application/x-www-form-urlencoded")
        if step.sender == "client":
            target = step.target
            if step.query is not None:
                target += "?" + build(step.query, ctx).decode("ascii")
            return {"method": step.method, "path": target, "headers": headers, "body": body}
        return {"status": step.status, "headers": headers, "body": body}

    # ---- receiving -------------------------------------------------------------------------------

    def receive(self, msg: Message) -> None:
        """Take the peer's message; Refused if it is not what the description says (the party is
        then done, and `refusal_message()` is its answer)."""
        if self.done:
            raise Refused("the conversation is over")
        if self.conversation is None:
            self._receive_first(msg)
            return
        step = self._step()
        assert step is not None and self._ctx is not None
        if step.sender == self.role:
            self._refuse(Refused(f"a message arrived when the {self.role} was to send step {step.index}"))
        # An answer the description declares as a refusal (`errors`) is one, whatever else it matches:
        # a 200 may be a refusal.
        kind = self.declared_refusal_kind(msg) if self.role == "client" else None
        if kind is not None:
            self._refuse(Refused(f"the server refused the message: it answered {msg.get('status')}, the description's "
                                 f"refusal of kind {kind}", kind=kind))
        try:
            self._parse(step, msg, self._ctx)
            check_stated_length(self._ctx)
        except Refused as exc:
            if self.role == "client" and self._is_refusal_value(msg):
                exc = Refused(f"the server refused (it sent the conversation's error value) at step {step.index}")
            self._refuse(exc)
        self._received(msg, self._ctx)
        self._advance(step)

    def _receive_first(self, msg: Message) -> None:
        """A server that was not told the conversation tries each one's first step."""
        reasons: list[str] = []
        first: Optional[Refused] = None
        for conv in self.description.conversations:
            step = conv.steps[0]
            if step.sender == self.role:
                continue  # this conversation starts with the server: not chosen by a message
            ctx = self._context(conv)
            try:
                self._parse(step, msg, ctx)
            except Refused as exc:
                reasons.append(f"{conv.name}: {exc.reason}")
                first = first or exc
                continue
            self._choose(conv, ctx)
            self._received(msg, ctx)
            self._advance(step)
            return
        # No kind: which conversation's `errors` would answer it is not known (the first's `error` does).
        self._refuse(Refused("; ".join(reasons) or "no conversation starts with the client",
                             first.status if first is not None else None))

    @staticmethod
    def _received(msg: Message, ctx: Context) -> None:
        """Note a tcp message taken: what a repeat = "received" value sends back."""
        if isinstance(msg, (bytes, bytearray)):
            ctx.message_received = bytes(msg)

    def _parse(self, step: Step, msg: Message, ctx: Context) -> None:
        """Refused for anything the peer can send, whatever the cause (as rsa_socket's machines
        never raise): an exception nobody anticipated is a refusal too, named as such."""
        try:
            self._parse_step(step, msg, ctx)
        except Refused:
            raise
        except Exception as exc:  # noqa: BLE001 -- a peer's bytes must never crash a party
            raise Refused(f"malformed message ({type(exc).__name__}: {exc})") from None

    def _parse_step(self, step: Step, msg: Message, ctx: Context) -> None:
        if not self.description.transport.is_http:
            if not isinstance(msg, (bytes, bytearray)):
                raise Refused("a tcp message must be bytes")
            assert step.send is not None
            parse(step.send, bytes(msg), ctx)
            return
        if not isinstance(msg, dict):
            raise Refused("an http message must be a dict")
        headers = {str(k).lower(): v for k, v in (msg.get("headers") or {}).items()}
        if step.sender == "client":
            route, _, query = str(msg.get("path", "")).partition("?")
            if msg.get("method") != step.method or route != step.target:
                # The conversation's error_status, as for every refusal but 401 (the spec's one status
                # for "refuses anything"; the seed's own server says 404/405 here).
                raise Refused(f"expected {step.method} {step.target}, got {msg.get('method')} {route}")
            if step.query is not None:
                parse(step.query, query.encode("utf-8", "surrogateescape"), ctx)
        elif msg.get("status") != step.status:
            raise Refused(f"answered status {msg.get('status')}, expected {step.status}")
        for name, v in step.headers:
            if name not in headers:
                raise Refused(f"no {name} header", status=401 if v.kind == "token" else None)
            parse(v, str(headers[name]).encode("utf-8", "surrogateescape"), ctx)
        if step.body is not None:
            body = msg.get("body", b"")
            parse(step.body, bytes(body) if isinstance(body, (bytes, bytearray)) else b"", ctx)

    def error_value(self) -> Optional[bytes]:
        """The server's error value, for a tcp client (a reader may meet it instead of the message it
        expects); None otherwise."""
        conv = self.conversation
        if (self.role != "client" or conv is None or conv.error is None or self._ctx is None
                or self.description.transport.is_http):
            return None
        try:
            return build(conv.error, self._ctx.copy())
        except Refused:
            return None

    def _is_refusal_value(self, msg: Message) -> bool:
        """Whether `msg` is the server's error value or one of its `errors` values, for a tcp client
        (a `starts_with` value: any text that begins so)."""
        conv = self.conversation
        if self.role != "client" or conv is None or self._ctx is None or self.description.transport.is_http:
            return False
        for answer in (conv.error, *(v for _, v in conv.errors)):
            if answer is None or not isinstance(msg, bytes):
                continue
            try:
                if answer.kind == "starts_with":
                    parse(answer, msg, self._ctx.copy())
                    return True
                if msg == build(answer, self._ctx.copy()):
                    return True
            except Refused:
                pass
        return False

    def declared_refusal_kind(self, msg: Message) -> Optional[str]:
        """The kind of refusal an HTTP answer is, when the conversation's `errors` declares one with
        its status (and its body, when it states one); None otherwise."""
        conv = self.conversation
        if conv is None or self._ctx is None or not isinstance(msg, dict):
            return None
        for kind, status, body in conv.http_errors:
            if msg.get("status") != status:
                continue
            if body is not None:
                got = msg.get("body", b"")
                try:
                    parse(body, bytes(got) if isinstance(got, (bytes, bytearray)) else b"", self._ctx.copy())
                except Exception:  # noqa: BLE001 -- not this refusal's body
                    continue
            return kind
        return None

    def _refuse(self, exc: Refused) -> None:
        self.done = True
        self.refusal = exc
        raise exc

    # ---- refusing --------------------------------------------------------------------------------

    def refusal_message(self) -> Optional[Message]:
        """What this side answers a refused message with: the conversation's `errors` value for the
        refusal's kind, else its `error` value (tcp; None if it has neither), or an HTTP error
        response: 401 for an unknown token or bad credentials, the conversation's error_status otherwise."""
        conv = self.conversation or self.description.conversations[0]
        if self.description.transport.is_http:
            kind = self.refusal.kind if self.refusal is not None else None
            for declared_kind, declared_status, body in conv.http_errors:
                if declared_kind == kind:  # the description's own answer to this kind (`errors`)
                    headers = {"content-type": {"json": "application/json", "form": "application/x-www-form-urlencoded"}.get(
                        body.kind, "text/plain") if body is not None else "text/plain"}
                    return {"status": declared_status, "headers": headers,
                            "body": build(body, self._ctx or self._context(conv)) if body is not None else b""}
            status = self.refusal.status if self.refusal is not None and self.refusal.status else conv.error_status
            return aes_https.refusal(status)
        answer = conv.error_for(self.refusal.kind if self.refusal is not None else None)
        if answer is None:
            return None
        try:
            return build(answer, self._ctx or self._context(conv))
        except Refused:
            raise DescriptionError(answer.path, "an error value must be buildable text") from None
