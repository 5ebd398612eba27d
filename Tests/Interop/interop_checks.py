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
