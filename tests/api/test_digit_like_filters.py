"""Filters that take "an id or a name" tell them apart without a 500 on digit-like characters.

`str.isdigit()` is true for "²" and "①", which `int()` refuses; such a value is a name (or,
where only an id is accepted, a 404), never a server error.
"""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path, expected",
    [
        ("/api/v1/items/?version=²", 200),
        ("/api/v1/items/?version=①", 200),
        ("/api/v1/annotation/calibration-results/?campaign=²", 200),
        ("/api/v1/annotation/manage/assignments/?campaign=²", 404),
    ],
)
def test_a_digit_like_value_is_not_an_id(client_for, cast, path, expected):
    response = client_for(cast.admin).get(path)
    assert response.status_code == expected
    if expected == 200:
        assert response.json()["results"] == []
