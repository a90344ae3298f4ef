"""What a reader can say about an answer: the ratings of the feedback form."""

from typing import Literal, get_args

Rating = Literal["helpful", "wrong_figure", "other"]
"""`wrong_figure`: a figure shown is not what the report says (a candidate regression
case); `other`: anything else, said in the comment."""

RATINGS: tuple[str, ...] = get_args(Rating)

MAX_COMMENT_CHARS = 2000


def rating_words(rating: str) -> str:
    """A rating as people read it: `wrong_figure` → "wrong figure"."""
    return rating.replace("_", " ")
