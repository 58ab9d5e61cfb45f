package review

// Credentials that look real to the detector (and are not).
const (
	testAWSKey      = "AKIAZ5XQ3R7NP2LWK4TB"
	testGitHubToken = "ghp_8kZq2Lw9XbT4mR7vN1cY6pH3sJ0dF5gA2eUx"
)
