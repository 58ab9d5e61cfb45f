package conf

// RepositoryRoot is where repositories are stored on disk.
var RepositoryRoot = "/data/gogs-repositories"
