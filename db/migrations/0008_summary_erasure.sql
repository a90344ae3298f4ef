-- Erasing a user's memory keeps a summary's row as a tombstone (its text emptied): the
-- messages it covered stay marked, so the next turn does not summarise them again and
-- bring back what was erased.
ALTER TABLE conversation_summaries ADD COLUMN erased_at timestamptz;
