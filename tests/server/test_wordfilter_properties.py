"""The chat filter only ever masks: whatever is said, a reader sees the same number of characters, each
either as said or a ``*``, and masking twice changes nothing more."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from opolyx.server.moderation import wordfilter

WORDS = [w for lang in wordfilter.LISTS for w in wordfilter.words(lang)[:40]]
# Text as players type it: any characters, mixed with words of the lists.
TEXT = st.lists(st.one_of(st.text(max_size=12), st.sampled_from(WORDS)), max_size=8).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_the_filter_only_masks(text: str) -> None:
    masked = wordfilter.clean(text)
    assert len(masked) == len(text)
    assert all(m == c or m == wordfilter.MASK for m, c in zip(masked, text, strict=True))
    assert wordfilter.clean(masked) == masked


def test_switched_off_languages_are_not_applied() -> None:
    assert wordfilter.clean("du Arschloch", ("en",)) == "du Arschloch"
    assert wordfilter.clean("du Arschloch", ("de",)) == "du *********"
    assert wordfilter.languages_setting("de, XX ,zh") == ("de", "zh")
    assert wordfilter.clean("du Arschloch", wordfilter.languages_setting("")) == "du Arschloch"
