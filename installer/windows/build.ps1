# Builds Understudy's Windows installer on Windows 10 or 11 (x64) with Python 3.11 from
# python.org and Inno Setup 6 (iscc.exe on PATH). Not run on Windows yet
# (README, "Not yet").
# Usage: powershell -ExecutionPolicy Bypass -File installer\windows\build.ps1 [-Out dist]
param([string]$Out = "dist")
$ErrorActionPreference = "Stop"
$Root = Resolve-Path (Join-Path $PSScriptRoot "..\..")
$Out = Join-Path $Root $Out
New-Item -ItemType Directory -Force -Path $Out | Out-Null

Write-Host "== Python packages (from the lock file; uvloop is left out on Windows by its marker)"
py -3.11 -m venv (Join-Path $Root ".venv")
$Py = Join-Path $Root ".venv\Scripts\python.exe"
& $Py -m pip install --quiet -r (Join-Path $Root "requirements.lock")
if ($LASTEXITCODE -ne 0) { throw "pip could not install the locked packages" }
& $Py -m pip install --quiet --no-deps -e $Root

Write-Host "== the page's npm packages (by their lock; no Node needed)"
& $Py (Join-Path $Root "tools\locked_npm.py") (Join-Path $Root "web_assets")
if ($LASTEXITCODE -ne 0) { throw "the page's npm packages could not be put in place" }

Write-Host "== frozen app (PyInstaller): understudy.exe and the console relay understudy-mcp.exe"
Push-Location (Join-Path $Root "installer")
& $Py -m PyInstaller --noconfirm --log-level WARN --distpath (Join-Path $Out "app") `
  --workpath (Join-Path $env:TEMP "understudy-pyi") understudy.spec
if ($LASTEXITCODE -ne 0) { throw "PyInstaller failed" }
Pop-Location

Write-Host "== installer (Inno Setup)"
$Values = @{}
& $Py (Join-Path $Root "installer\platform_info.py") | ForEach-Object {
  $Name, $Value = $_ -split "=", 2
  $Values[$Name] = $Value
}
iscc /Q "/DAppVersion=$($Values.APP_VERSION)" "/DAppId=$($Values.APP_ID)" `
  "/DSourceDir=$(Join-Path $Out 'app\understudy')" `
  "/O$Out" (Join-Path $Root "installer\windows\understudy.iss")
if ($LASTEXITCODE -ne 0) { throw "Inno Setup failed" }
Write-Host "installer: $(Join-Path $Out "Understudy-Setup-$($Values.APP_VERSION).exe")"
