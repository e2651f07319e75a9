"""A caller's own words read in code: normalisation, phrase matching, a clear yes or no.

Policy that depends on what the caller said (a yes to a read-back, a consent answer,
the calling-number question) reads the words here, never only the model's account of
them, and every question reads them with one rule, `polarity`: a clear yes, a clear no,
or neither. Neither is asked about again; it never counts as either answer.

- Acknowledgements ("okay", "okay thanks", "all right", "alright", "right", "fine",
  "no worries", "no problem") answer nothing: a caller says them to whatever they just
  heard. Said with an answer they count for neither side ("okay, yes" is a yes).
- A question is no answer ("sure thing?", "are you sure?"), nor is doubt ("maybe"), nor
  a yes and a no together ("yes and no"), nor a negated yes ("absolutely not").
- A yes followed by a new request ("yes please, and then I also need my address
  updated") is a yes: the request's words count for neither side, unless they hold a
  no, doubt or a question, which make the whole answer neither. A yes to a read-back
  (`confirms`) also takes no correction ("yes, but ...", "change"), no number the
  read-back did not say, and no name of a payment method, colour, size or material the
  read-back did not say ("yes, the gift card" to a read-back naming PayPal), wherever in
  the answer they come.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from customer_service.normalize import numbers_from_speech

__all__ = [
    "Phrases",
    "acknowledgement_only",
    "confirms",
    "declines_outright",
    "names_only_what_was_read_back",
    "normalise",
    "polarity",
]

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'"})
# Typed text often drops the apostrophe; speech-to-text rarely does.
_CONTRACTIONS = (
    (re.compile(r"\bdont\b"), "don't"),
    (re.compile(r"\bdoesnt\b"), "doesn't"),
    (re.compile(r"\bisnt\b"), "isn't"),
    (re.compile(r"\bim\b"), "i'm"),
    (re.compile(r"\bthats\b"), "that's"),
    (re.compile(r"\bwhats\b"), "what's"),
    (re.compile(r"\bwheres\b"), "where's"),
)


def normalise(text: str) -> str:
    """Lower-case, straight apostrophes, common contractions restored, single spaces."""
    lowered = text.translate(_APOSTROPHES).lower()
    for pattern, replacement in _CONTRACTIONS:
        lowered = pattern.sub(replacement, lowered)
    return " ".join(lowered.split())


class Phrases:
    """A set of whole-word phrases, matched against normalised text."""

    def __init__(self, phrases: Iterable[str], *, plurals: bool = False) -> None:
        alternatives = sorted({re.escape(phrase) for phrase in phrases}, key=len, reverse=True)
        suffix = "s?" if plurals else ""
        self._pattern = re.compile(rf"(?<![\w'])(?:{'|'.join(alternatives)}){suffix}(?![\w'])")

    def found_in(self, text: str) -> bool:
        return self._pattern.search(text) is not None

    def removed_from(self, text: str) -> str:
        return self._pattern.sub(" ", text)

    def named_in(self, text: str) -> list[str]:
        """The phrases found in `text`, each time one is, longest first where they overlap."""
        return [match.group(0) for match in self._pattern.finditer(text)]


_UNSURE = Phrases(
    [
        "not sure",
        "unsure",
        "maybe",
        "perhaps",
        "i guess",
        "i don't know",
        "i do not know",
        "depends",
        "what do you mean",
    ]
)
# Words that acknowledge what was heard without answering anything: "okay, thanks".
_ACKNOWLEDGEMENTS = Phrases(
    [
        "okay",
        "ok",
        "thanks",
        "thank you",
        "alright",
        "all right",
        "right",
        "great",
        "cool",
        "got it",
        "fine",
        "perfect",
        "no worries",
        "no problem",
        "not a problem",
    ]
)
# Idioms with a negative word in them that say no no ("why not" says no yes either).
_NOT_NEGATIVE = Phrases(["no problem", "no worries", "not a problem", "why not"])
_NO = Phrases(
    [
        "no",
        "nope",
        "nah",
        "not right",
        "not correct",
        "isn't right",
        "isn't correct",
        "not quite",
        "wrong",
        "incorrect",
        "don't",
        "do not",
        "decline",
        "refuse",
        "disagree",
        "don't agree",
        "do not agree",
        "not agree",
        "negative",
        "rather not",
        "no thanks",
        "no thank you",
    ]
)
# A yes-word with one of these is no yes: "absolutely not", "of course not".
_NEGATION = Phrases(["not", "never", "no way"])
# No acknowledgement is here: "okay", "all right" or "right" alone answer nothing.
_YES = Phrases(
    [
        "yes",
        "yeah",
        "yep",
        "yup",
        "yes please",
        "correct",
        "that's right",
        "that is right",
        "sure",
        "agree",
        "i agree",
        "consent",
        "i do",
        "go ahead",
        "please do",
        "absolutely",
        "of course",
        "definitely",
        "affirmative",
        "that's it",
        "exactly",
    ]
)


def polarity(text: str) -> bool | None:
    """True for a clear yes, False for a clear no, None for neither: the one rule every
    question reads its answer with (see the module's docstring)."""
    said = normalise(text)
    if _UNSURE.found_in(said) or said.endswith("?"):
        return None
    plain = _NOT_NEGATIVE.removed_from(said)
    answered_no = _NO.found_in(plain)
    # "that's not right" says no; the "right" inside it is not a yes.
    answered_yes = _YES.found_in(_NO.removed_from(plain))
    if answered_yes and _NEGATION.found_in(plain):
        return None
    if answered_yes == answered_no:
        return None
    return answered_yes


def acknowledgement_only(text: str) -> bool:
    """Whether `text` is only acknowledgements ("okay", "thanks", "great, thank you"):
    words a caller says to what they just heard, whatever it was. Never a yes or a no."""
    said = normalise(text)
    return bool(said) and re.search(r"\w", _ACKNOWLEDGEMENTS.removed_from(said)) is None


# Words that only react to what was heard: "oh", "wow", and a yes to a statement.
_REACTIONS = Phrases(
    ["oh", "wow", "yes", "yeah", "yep", "yup", "excellent", "wonderful", "awesome"]
)


def only_reacts(text: str) -> bool:
    """Whether `text` only reacts to a statement just heard ("oh great, yes, thank you",
    "okay thanks"): acknowledgements and exclamations, with nothing asked or told."""
    said = normalise(text)
    if not said or said.endswith("?"):
        return False
    rest = _REACTIONS.removed_from(_ACKNOWLEDGEMENTS.removed_from(said))
    return re.search(r"\w", rest) is None


# A caller refusing something in so many words: "stop texting me", "no more texts".
_OUTRIGHT_NO = Phrases(
    [
        "stop",
        "quit",
        "don't send",
        "do not send",
        "don't text",
        "do not text",
        "no more",
        "don't want",
        "do not want",
        "no longer want",
        "unsubscribe",
        "opt out",
        "opt me out",
        "turn off",
        "switch off",
        "don't record",
        "do not record",
    ]
)


def declines_outright(text: str) -> bool:
    """Whether the caller's words themselves say no to something ("stop texting me",
    "don't send me texts", "can you stop recording?"): a no they have said, which needs
    no question to confirm. Withdrawing is always theirs to do, so asked as a question
    it counts too."""
    return _OUTRIGHT_NO.found_in(normalise(text))


# Words that turn a yes into a correction: "yes, but the zip is 94108".
_CORRECTION = Phrases(["but", "except", "actually", "instead", "change", "wait", "hang on"])


_CARD = r"(?<!gift )card"
"""A card that is not a gift card: what "the card" or "my credit card" names."""
_OPTION_WORDS = (
    *("beige", "black", "blue", "brown", "gold", "green", "navy", "pink", "purple", "red"),
    *("silver", "white", "yellow", "small", "medium", "large", "leather", "metal"),
    *("plastic", "wood", "cotton", "nylon", "cork", "foam", "firm", "king"),
)
_NAMED_IN_READ_BACK = {
    **{
        phrase: re.compile(rf"(?<![\w']){pattern}(?![\w'])")
        for phrase, pattern in {
            "gift card": "gift card",
            "paypal": "paypal",
            "pay pal": "paypal",
            "visa": "visa",
            "mastercard": "master ?card",
            "master card": "master ?card",
            "amex": "amex|american express",
            "american express": "amex|american express",
            "credit card": _CARD,
            "debit card": _CARD,
            "card": _CARD,
            "grey": "gr[ae]y",
            "gray": "gr[ae]y",
        }.items()
    },
    **{
        word: re.compile(rf"(?<![\w']){word}(?![\w'])")
        # Colours, sizes and materials the catalogue's items differ by.
        for word in _OPTION_WORDS
    },
}
"""Words that name a payment method or an item's option, each with what a read-back
must hold for an answer that says it to confirm that read-back."""
_NAMES = Phrases(_NAMED_IN_READ_BACK)


def names_only_what_was_read_back(answer: str, read_back: str) -> bool:
    """Whether every payment method, colour, size or material `answer` names is one
    `read_back` names too: "yes, the gift card" names another method than a read-back
    of PayPal, and is a correction."""
    heard = normalise(read_back)
    return all(
        _NAMED_IN_READ_BACK[name].search(heard) for name in _NAMES.named_in(normalise(answer))
    )


def confirms(
    answer: str, *, read_back: str, numbers: str | None = None, names: str | None = None
) -> bool:
    """Whether `answer` is a clear yes to `read_back` that corrects nothing: no "but",
    no payment method or item option other than `names` holds (default: the read-back;
    `names_only_what_was_read_back`), and no number `numbers` (default: the read-back)
    did not say in full. Numbers said with the yes must be whole numbers of the
    read-back, in its order: "yes, 100102" confirms the read-back of order 100102;
    "yes, 102", "yes 0" and "yes, cancel order 10" do not."""
    if polarity(answer) is not True or _CORRECTION.found_in(normalise(answer)):
        return False
    if not names_only_what_was_read_back(answer, read_back if names is None else names):
        return False
    said = "".join(numbers_from_speech(answer))
    return _said_in_order(said, numbers_from_speech(read_back if numbers is None else numbers))


def _said_in_order(digits: str, numbers: Sequence[str]) -> bool:
    """Whether `digits` are some of `numbers`, each whole, one after another in order."""
    if not digits:
        return True
    return any(
        digits.startswith(number) and _said_in_order(digits[len(number) :], numbers[index + 1 :])
        for index, number in enumerate(numbers)
    )
