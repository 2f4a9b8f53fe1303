"""A unit is found by arithmetic (its response's first unit + the criterion's place among its item's kept criteria).

Checked against the plain definition, every (response, criterion) pair of the campaign and a few
that are no unit, with criteria left out (catastrophic ones) and without.
"""

import numpy as np
import pytest

from tests.validation.builders import blind_test
from validation.selectors import load_campaign_arrays

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("exclude_catastrophic", [False, True])
def test_every_pair_finds_its_unit_and_no_other_pair_does(cast, exclude_catastrophic):
    campaign = blind_test(cast)
    data = load_campaign_arrays(campaign, exclude_catastrophic=exclude_catastrophic)
    assert data.n_units > 100
    if exclude_catastrophic:
        assert data.crit_catastrophic.any() and not data.crit_catastrophic[data.u_crit].any()
    expected = {(int(data.cr_id[r]), int(data.crit_id[c])): u for u, (r, c) in enumerate(zip(data.u_cr, data.u_crit))}
    # Every response with every criterion of the campaign: its own item's kept ones are units, the rest are not.
    cr = np.repeat(data.cr_id, len(data.crit_id))
    crit = np.tile(data.crit_id, len(data.cr_id))
    found = data.unit_index(cr, crit)
    wanted = np.array([expected.get((int(a), int(b)), -1) for a, b in zip(cr, crit)])
    assert np.array_equal(found, wanted)
    assert (found >= 0).sum() == data.n_units
    # Ids that are no response or criterion of the campaign.
    assert data.unit_index(np.array([-5, int(data.cr_id.max()) + 1]), np.array([int(data.crit_id[0])] * 2)).tolist() == [-1, -1]
    assert data.unit_index(np.array([int(data.cr_id[0])]), np.array([int(data.crit_id.max()) + 1])).tolist() == [-1]
    # And the judgments sit on their units in unit order.
    assert (np.diff(data.j_unit) >= 0).all()
