"""Remember what several checks of one context compute in common.

Checks are pure functions of (context, rules), so a value derived from a context can be shared by
every check that runs on it: the compliance verification, the accuracy problems, the power state
and the bandwidth evaluation are each computed once per result. Contexts are compared by identity
(they are frozen and the engine checks one at a time), and only the last few are kept.
"""

from __future__ import annotations

import functools
from typing import Callable, TypeVar

T = TypeVar("T")
KEEP = 64  # contexts remembered per function; the engine finishes a result before the next one
_STAR_ARGS = 0x04 | 0x08  # CO_VARARGS | CO_VARKEYWORDS (code flags: *args, **kwargs)
_MEMOS: list[dict] = []  # every per_context memo, emptied by forget()
_RESETS: list[Callable[[], None]] = []  # each memo's forgetting of its most recent value


def forget() -> None:
    """Drop every remembered value: the pipeline calls this when a submitter is done, so the contexts of
    one submitter (and the parsed logs they hold) are not kept while the next one is checked."""
    for memo in _MEMOS:
        if memo:
            memo.clear()
    for reset in _RESETS:
        reset()


def per_context(func: Callable[..., T]) -> Callable[..., T]:
    """``func(ctx, rules, *extra)``, computed once per (ctx, rules, extra) while ctx is recent."""
    memo: dict = {}
    _MEMOS.append(memo)
    # the most recent (ctx, rules, extra, value), in the closure: the checks of a result ask the same value one
    # after the other
    last_ctx = last_rules = last_extra = last_value = None

    def reset() -> None:
        nonlocal last_ctx, last_rules, last_extra, last_value
        last_ctx = last_rules = last_extra = last_value = None

    _RESETS.append(reset)

    code = getattr(func, "__code__", None)
    if code is not None and code.co_argcount == 2 and not code.co_flags & _STAR_ARGS:

        @functools.wraps(func)
        def remembered_pair(ctx, rules):  # (a value of (ctx, rules) alone: no extra arguments to pack and compare)
            nonlocal last_ctx, last_rules, last_value
            if last_ctx is ctx and last_rules is rules:
                return last_value
            key = (id(ctx), id(rules))
            hit = memo.get(key)
            if hit is not None and hit[0] is ctx and hit[1] is rules:
                value = hit[2]
            else:
                if len(memo) >= KEEP:
                    memo.clear()
                value = func(ctx, rules)
                memo[key] = (ctx, rules, value)
            last_ctx, last_rules, last_value = ctx, rules, value
            return value

        return remembered_pair

    @functools.wraps(func)
    def remembered(ctx, rules, *extra):
        nonlocal last_ctx, last_rules, last_extra, last_value
        if last_ctx is ctx and last_rules is rules and last_extra == extra:
            return last_value
        key = (id(ctx), id(rules), extra)
        hit = memo.get(key)
        if hit is not None and hit[0] is ctx and hit[1] is rules:
            value = hit[2]
        else:
            if len(memo) >= KEEP:
                memo.clear()
            value = func(ctx, rules, *extra)
            memo[key] = (ctx, rules, value)
        last_ctx, last_rules, last_extra, last_value = ctx, rules, extra, value
        return value

    return remembered
