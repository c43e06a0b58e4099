package service

// SetCommitEveryForTest makes the Import commit once it holds n events.
func (im *Import) SetCommitEveryForTest(n int) { im.commitEvery = n }
