"""The offline model: deterministic rules standing in for an LLM when no provider is set.

`OfflineLLM` is what `make chat` and the conversation tests use when no provider keys
or LiveKit credentials are configured. It lets a new user walk through every flow
(verify identity, look up an order, change an address, cancel an order, give consent,
ask for a person, hang up) in a terminal with no keys and no network. It is a
stand-in for trying the flows, not a product model: it understands only the phrasings
its rules look for, and a real deployment configures a real LLM.

How it answers, on each request:

1. It recognises the active agent by the tools offered (`profiles.profiles()`: the
   supervisor, or one of the specialists, each a module of `offline_llm/specialists/`
   holding its rules and how the supervisor routes to it and offers it).
2. When the last item is a tool output, it speaks it (tool outputs are sentences
   written for the caller); the supervisor adds "Is there anything else I can help you
   with?" after a successful one, except after `end_call` or `transfer_to_human`.
3. Before the caller has said anything, it greets them (a specialist asks its question).
   A specialist's first turn may come with the caller's words already in its history
   (details said up front): it answers them like a new line, so the identity
   specialist checks details it can read there, and the address specialist records an
   address the caller already gave ("... change order 100102 to 1 Market Street, ...").
   Calls to tools this agent is not offered (the supervisor's tool that started the
   specialist, shown as still running) are someone else's work and are left out.
4. Otherwise it reads the caller's words with plain rules (keywords, numbers, emails,
   names, addresses, yes or no) and either calls one offered tool or speaks one line:
   - `supervisor`: a person, goodbye, then each offered specialist's route in rank
     order: text updates or recording (`request_consent` with topic
     "order_updates_sms" or "call_recording"), a cancellation (`cancel_order`), an
     address change or an order (with the order number when one was said; "will it
     arrive?" asks about the order the call is about), verification; anything else
     gets the menu, built from the offered specialists' phrases; "okay, thanks" to
     something the agent said (not asked) is welcomed; a yes or no answers the
     agent's last line ("I can transfer you to a colleague ..." ->
     `transfer_to_human`; "anything else?" -> `end_call` on a no).
   - `specialists`: each one hands a caller who asks for a person (or accepts a
     colleague a tool offered) to `transfer_to_human`; the address specialist reads a
     one-line address, its read-back answer, or a correction of the one part a
     problem message named ("The ZIP code 9410 doesn't look right" -> "94105"); the
     cancellation specialist confirms on a clear yes (`confirm_cancellation`), gives
     up on a no or on keeping the order, and repeats its read-back, word for word,
     after anything else (a yes about another order too); the consent specialist
     records an explicit yes or no (an acknowledgement is neither) and repeats its
     question, word for word, after anything else. Every specialist calls
     `caller_wants_something_else` on a goodbye or a request for other work ("actually,
     where is order 100101?"); the supervisor then acts on that line, not on the
     stopped tool's words. A no said outright ("stop texting me") is passed to
     `request_consent` as `caller_said_no`, which reads the caller's words again.
5. "Hello? Are you there?" while a tool still runs gets "still here"; the framework's
   stand-in output for a running tool is never read aloud.

The caller's words are data: whatever they say, only a tool that was offered is ever
called. The same conversation always gets the same answer (only call ids differ).
"""

from __future__ import annotations

from customer_service.offline_llm.model import OfflineLLM, OfflineLLMStream

__all__ = ["OfflineLLM", "OfflineLLMStream"]
