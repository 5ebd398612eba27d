"""What the interop scripts share: one line per check, and the run ends at the first failure."""

import sys

passed = 0


def check(name, condition, detail=""):
    global passed
    if not condition:
        print(f"FAIL {name} {detail}", flush=True)
        sys.exit(1)
    passed += 1
    print(f"ok   {name}", flush=True)


def raises(name, exception, call, **expected):
    """`call` must raise `exception` with these attributes; returns the exception."""
    try:
        call()
    except exception as error:
        for key, value in expected.items():
            actual = getattr(error, key, None)
            if actual != value:
                check(name, False, f"{key} = {actual!r}, expected {value!r}; {error}")
        check(name, True)
        return error
    except Exception as error:  # noqa: BLE001 - report what else was raised
        check(name, False, f"raised {type(error).__name__}: {error}")
    check(name, False, "nothing was raised")


def done():
    print(f"{passed} checks passed", flush=True)


def shape_problems(value, cls, top=True, path="", may_lack=()):
    """What `value` (a stripe-python object) lacks against `cls`, stripe-python's typed class
    for it: at the top, every field the class declares must be present; at every depth, a field
    not declared Optional must be present and non-null, a closed enum (a Literal alone) must
    hold one of its values, and nested typed objects are checked the same way (their Optional
    fields only when present, as Stripe leaves out those of other payment method types)."""
    import typing

    import stripe

    problems = []
    annotations = getattr(cls, "__annotations__", {})
    # A payment method (and its charge's details) holds the hash of its own type only, as
    # Stripe's answers do: the other types' hashes may be absent.
    types = annotations.get("type")
    other_types = set()
    for candidate in typing.get_args(types) if typing.get_origin(types) is typing.Union else [types]:
        if typing.get_origin(candidate) is typing.Literal:
            other_types |= set(typing.get_args(candidate)) - {value["type"] if "type" in value else None}
    for field, annotation in annotations.items():
        if field.startswith("_") or typing.get_origin(annotation) is typing.ClassVar or field in other_types:
            continue
        args = typing.get_args(annotation)
        optional = typing.get_origin(annotation) is typing.Union and type(None) in args
        where = f"{path}{field}"
        if field not in value:
            # `deleted` is shown by a deleted object only.
            if (top and field != "deleted" and field not in may_lack) or not optional:
                problems.append(f"{where} missing")
            continue
        item = value[field]
        if item is None:
            if not optional:
                problems.append(f"{where} null")
            continue
        candidates = [a for a in args if a is not type(None)] if optional else [annotation]
        for candidate in candidates:
            if typing.get_origin(candidate) is typing.Literal and len(candidates) == 1 and item not in typing.get_args(candidate):
                problems.append(f"{where} = {item!r}, not one of {typing.get_args(candidate)}")
            inner = candidate
            items = [item]
            if typing.get_origin(candidate) in (list, typing.List):
                inner = (typing.get_args(candidate) or [None])[0]
                items = item if isinstance(item, list) else []
            if isinstance(inner, type) and issubclass(inner, stripe.StripeObject) and "." in inner.__qualname__:
                for index, element in enumerate(items):
                    if isinstance(element, (dict, stripe.StripeObject)):
                        suffix = f"[{index}]." if len(items) > 1 or inner is not candidate else "."
                        problems += shape_problems(element, inner, top=False, path=f"{where}{suffix}")
    return problems


def shaped(name, value, cls, may_lack=()):
    """Checks `value` against stripe-python's typed class `cls` (see shape_problems); the
    top-level fields in `may_lack` may be absent (those Stripe itself shows only sometimes)."""
    problems = shape_problems(value, cls, may_lack=may_lack)
    check(f"{name}: every field of stripe-python's {cls.__name__}", not problems, "; ".join(problems))
