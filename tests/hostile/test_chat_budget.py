"""Chat templates that would spend unbounded memory or time, or fail with a bare Python error,
stop with a ChatTemplateError naming the template line (each in a child process)."""

from __future__ import annotations

import pytest
import tokensmith.limits as limits
from hostile_helpers import expect_error, expect_result
from tokensmith.chat.render import render_chat
from tokensmith.errors import ChatTemplateError, ChatTemplateLimitError, LimitError


def _render_source(template: str) -> str:
    return f"""
        from tokensmith.chat.render import render_chat
        result = render_chat({template!r}, [{{"role": "user", "content": "hi"}}])
        """


@pytest.mark.parametrize(
    ("template", "limit"),
    [
        ("{{ 'a' * 10**9 }}", "template_output_chars"),
        ("{{ [1] * 10**9 }}", "template_output_chars"),
        ("{{ lipsum(10**6) }}", "template_output_chars"),
        ("{{ 'a' | center(10**10) }}", "template_output_chars"),
        ("{{ 'x' | indent(10**10) }}", "template_output_chars"),
        ("{{ '{:>10000000000}'.format(1) }}", "template_output_chars"),
        ("{{ '%10000000000d' % 1 }}", "template_output_chars"),
        ("{{ 7 ** (10**9) }}", "template_output_chars"),
        (
            "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
            "template_loop_iterations",
        ),
    ],
)
def test_resource_payloads_stop_at_a_named_limit(template, limit):
    out = expect_error(
        "\n" + _render_source("\n" + template),
        "ChatTemplateLimitError",
        contains=f"above the limit {limit}",
    )
    assert "at line 2" in out.message
    assert "LimitError" in out.bases and "ChatTemplateError" in out.bases


def test_time_budget_stops_a_render():
    # Loops within the iteration budget but past a (lowered) time budget.
    expect_error(
        """
        import tokensmith.limits as limits
        from tokensmith.chat.render import render_chat
        limits.set_limits(template_render_seconds=0.2, template_loop_iterations=10**9)
        t = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
        result = render_chat(t, [])
        """,
        "ChatTemplateLimitError",
        contains="template_render_seconds",
    )


@pytest.mark.parametrize(
    ("template", "python_error"),
    [
        ("{{ 1 / 0 }}", "ZeroDivisionError"),
        ("{{ '%d' % 'x' }}", "TypeError"),
        ("{{ 'abc'.index('z') }}", "ValueError"),
        ("{{ (2.0 ** 10000) }}", "OverflowError"),
        ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "recursed"),
    ],
)
def test_python_errors_inside_a_template_are_chat_template_errors(template, python_error):
    out = expect_error(_render_source("\n" + template), "ChatTemplateError")
    assert python_error in out.message, out.message
    if python_error != "recursed":
        assert "at line 2" in out.message, out.message


def test_a_missing_index_or_key_renders_as_nothing():
    # Jinja renders them as undefined values, as transformers does, not as errors.
    expect_result(_render_source("{{ [1, 2][5] }}{{ {'a': 1}['b'] }}"), "''")


def test_normal_templates_render_in_process():
    template = "{% for m in messages %}[{{ m.role }}] {{ m.content * 2 }}{% endfor %}"
    assert render_chat(template, [{"role": "user", "content": "hi"}]) == "[user] hihi"


def test_limit_error_is_both_chat_and_limit_error():
    limits.set_limits(template_output_chars=10)
    try:
        with pytest.raises(ChatTemplateLimitError) as e:
            render_chat("{{ 'abcdef' + 'ghijkl' }}", [])
    finally:
        limits.set_limits(template_output_chars=limits.DEFAULTS["template_output_chars"])
    assert isinstance(e.value, ChatTemplateError) and isinstance(e.value, LimitError)
    assert isinstance(e.value, ValueError) and e.value.limit == "template_output_chars"
