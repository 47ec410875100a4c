"""Layout campaigns in the window and the decision table they end with."""

from .decision_view import DecisionView
from .view import CampaignView

__all__ = ["CampaignView", "DecisionView"]
