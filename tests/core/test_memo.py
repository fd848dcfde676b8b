"""per_context: one value per (context, rules, extra) while the context is recent, dropped by forget()."""

from checker.checks import memo


class Ctx:
    pass


def _counted():
    calls = []

    @memo.per_context
    def pair(ctx, rules):
        calls.append((ctx, rules))
        return [ctx, rules]

    @memo.per_context
    def extra(ctx, rules, direction):
        calls.append((ctx, rules, direction))
        return [ctx, rules, direction]

    return calls, pair, extra


def test_values_are_remembered_per_context_rules_and_extra():
    calls, pair, extra = _counted()
    a, b, rules, other = Ctx(), Ctx(), object(), object()
    first = pair(a, rules)
    assert pair(a, rules) is first and len(calls) == 1
    assert pair(b, rules) is not first and pair(a, rules) is first and len(calls) == 2  # (the older one is kept)
    assert pair(a, other) == [a, other] and len(calls) == 3
    up = extra(a, rules, "ingress")
    assert extra(a, rules, "ingress") is up and extra(a, rules, "egress") == [a, rules, "egress"]
    assert extra(a, rules, "ingress") is up and len(calls) == 5
    memo.forget()
    assert pair(a, rules) == first and pair(a, rules) is not first and len(calls) == 6
    assert extra(a, rules, "ingress") is not up and len(calls) == 7


def test_forget_drops_every_context():
    calls, pair, extra = _counted()
    ctx = Ctx()
    pair(ctx, None), extra(ctx, None, 1)
    memo.forget()
    assert all(not m for m in memo._MEMOS)
    pair(ctx, None)
    assert len(calls) == 3


def test_many_contexts_are_recomputed_when_they_fall_out():
    calls, pair, _ = _counted()
    contexts = [Ctx() for _ in range(memo.KEEP * 2)]
    for ctx in contexts:
        pair(ctx, None)
    assert len(calls) == len(contexts)
    for ctx in contexts[-3:]:
        assert pair(ctx, None)[0] is ctx
