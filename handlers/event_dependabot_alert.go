package handlers

type dependabotAlertPayload struct {
	Action       string           `json:"action"`
	Installation slimInstallation `json:"installation"`
	Repository   alertRepo        `json:"repository"`
	Alert        struct {
		Number     int    `json:"number"`
		HTMLURL    string `json:"html_url"`
		Dependency struct {
			Package struct {
				Ecosystem string `json:"ecosystem"`
				Name      string `json:"name"`
			} `json:"package"`
			ManifestPath string `json:"manifest_path"`
		} `json:"dependency"`
		SecurityAdvisory struct {
			GHSAID   string `json:"ghsa_id"`
			CVEID    string `json:"cve_id"`
			Summary  string `json:"summary"`
			Severity string `json:"severity"`
		} `json:"security_advisory"`
		SecurityVulnerability struct {
			VulnerableVersionRange string `json:"vulnerable_version_range"`
			FirstPatchedVersion    *struct {
				Identifier string `json:"identifier"`
			} `json:"first_patched_version"`
		} `json:"security_vulnerability"`
	} `json:"alert"`
}

func (p *dependabotAlertPayload) validate() error {
	return validateInstalled(p.Repository.slimRepo, p.Installation.ID)
}
