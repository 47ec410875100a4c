"""Layout campaigns: the same benchmarks on several layouts of the same bricks, run as one
resumable job, and the decision table at the end (no Qt; the CLI and the app drive it).

- ``spec``: the campaign file (versioned JSON, strict field-path errors);
- ``state``: the named steps and their saved state;
- ``runner``: ``CampaignRunner`` start / pause / cancel / resume, progress events per step;
- ``dryrun``: every step and command of every layout, nothing changed;
- ``results``: ``stored_campaign(store, id)`` (record, spec, state) and ``campaign_table``: the
  decision table of a campaign from its stored runs (what reports and views read).
"""

from .runner import CampaignError, CampaignEvent, CampaignRunner
from .spec import CampaignFileError, CampaignSpec, load
from .state import CampaignState, CampaignStep, campaign_steps

__all__ = ["CampaignError", "CampaignEvent", "CampaignFileError", "CampaignRunner", "CampaignSpec",
           "CampaignState", "CampaignStep", "campaign_steps", "load"]
