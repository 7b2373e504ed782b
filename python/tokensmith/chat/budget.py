"""The resource budget of one chat-template render: output size, loop iterations and time.

Jinja's sandbox stops a template from reaching Python internals, but not from spending memory
or time: ``{{ 'a' * 10**9 }}`` allocates a gigabyte and two nested ``range(100000)`` loops run
for minutes. A :class:`Budget` is opened for each render (see :func:`render_budget`) and the
sandbox charges it: every loop iteration, every call, every string or list a ``*``/``+``
builds, and every chunk of output. Sizes are checked *before* the operation allocates. A
breach raises :class:`BudgetExceeded` inside the template, which the renderer turns into a
:class:`~tokensmith.errors.ChatTemplateLimitError` naming the template line and the limit
(``template_output_chars``, ``template_loop_iterations`` or ``template_render_seconds`` of
:mod:`tokensmith.limits`).

>>> with render_budget():
...     current().charge_size(10, "a string")
>>> with render_budget():
...     current().charge_size(10**12, "a string")
Traceback (most recent call last):
...
tokensmith.chat.budget.BudgetExceeded: a string is 1000000000000 characters
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from tokensmith.limits import get_limit

__all__ = ["Budget", "BudgetExceeded", "budgeted", "current", "render_budget"]


class BudgetExceeded(Exception):
    """Raised inside a template when a render passes one of its limits."""

    def __init__(self, limit: str, what: str, value: int | float) -> None:
        super().__init__(what)
        self.limit, self.what, self.value = limit, what, value


class Budget:
    """What one render may still spend."""

    def __init__(self) -> None:
        self.max_chars = int(get_limit("template_output_chars"))
        self.iterations_left = int(get_limit("template_loop_iterations"))
        self.seconds = float(get_limit("template_render_seconds"))
        self.deadline = time.monotonic() + self.seconds
        self.output = 0

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise BudgetExceeded(
                "template_render_seconds", "the render's time in seconds", self.seconds
            )

    def charge_size(self, size: int, what: str) -> None:
        """Refuses a value of ``size`` characters (or items) before it is built."""
        if size > self.max_chars:
            raise BudgetExceeded("template_output_chars", f"{what} is {size} characters", size)

    def charge_output(self, chunk: str) -> None:
        self.output += len(chunk)
        if self.output > self.max_chars:
            raise BudgetExceeded(
                "template_output_chars", f"the output is {self.output} characters", self.output
            )
        self.check_time()

    def charge_iteration(self) -> None:
        self.iterations_left -= 1
        if self.iterations_left < 0:
            raise BudgetExceeded(
                "template_loop_iterations",
                "the render's loop iterations",
                int(get_limit("template_loop_iterations")) + 1,
            )
        # A clock read costs about as much as the rest of an iteration; 1 in 64 is enough.
        if self.iterations_left & 63 == 0:
            self.check_time()


_CURRENT: ContextVar[Budget | None] = ContextVar("tokensmith_chat_budget", default=None)


def current() -> Budget:
    """The budget of the render under way (a fresh one outside any render)."""
    budget = _CURRENT.get()
    return budget if budget is not None else Budget()


@contextmanager
def render_budget() -> Iterator[Budget]:
    """Opens a budget for one render."""
    budget = Budget()
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)


def budgeted(iterable: Iterable[Any]) -> Iterator[Any]:
    """``iterable`` with each step charged to the render's budget (every ``for`` loop of a
    template iterates through this)."""
    budget = current()
    for item in iterable:
        budget.charge_iteration()
        yield item
