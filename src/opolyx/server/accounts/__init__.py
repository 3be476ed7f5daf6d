"""Who plays: guest identity and session records, e-mailed sign-in links, profiles, personal API keys,
and their routes."""
