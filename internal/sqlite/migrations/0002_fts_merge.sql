INSERT INTO events_search (events_search, rank) VALUES ('automerge', 8);
