package market

// ReleaseVersion is Rynek's version: the original plugin's getVersion().
const ReleaseVersion = "0.2.0"

// WebAPIContract is the number of the read contract the HTTP interface
// serves, the original plugin's WEB_API_CONTRACT: a website written for it
// reads every route of that number the same way.
const WebAPIContract = 1

// ReleaseVersion is the original's getVersion(): Rynek's version. (Version
// is the market's: the event log's newest seq.)
func (s *Service) ReleaseVersion() string { return ReleaseVersion }

// WebAPIContract is the original's getWebApiContract().
func (s *Service) WebAPIContract() int { return WebAPIContract }
