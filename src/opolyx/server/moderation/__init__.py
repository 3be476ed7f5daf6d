"""Table manners and moderation: what players do about each other (friends, mutes, blocks, reports) and
what operators do about players (sanctions, removed lines, closed rooms), each written to an audit log."""
