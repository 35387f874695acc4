# Builds the Windows packages from the repository root:
#   dist\outpost\                                  the one-folder app (outpost.exe)
#   dist\outpost-VERSION-windows-x64.zip           the same folder, portable
#   dist\outpost-VERSION-windows-x64-setup.exe     the per-user installer (Inno Setup 6)
#
# Prerequisites: 64-bit Python 3.11+ (python.org, "py" launcher) and Inno Setup 6.
# Usage (PowerShell):  powershell -ExecutionPolicy Bypass -File packaging\windows\build.ps1
#
# Environment (optional):
#   ISCC                     path to ISCC.exe when Inno Setup is not in its default folder
#   OUTPOST_SIGN_PFX         a code-signing certificate (.pfx): sign outpost.exe and the installer
#   OUTPOST_SIGN_PASSWORD    its password
#   OUTPOST_TIMESTAMP_URL    the RFC 3161 timestamp server of the certificate's vendor
param([switch]$SkipInstaller)
$ErrorActionPreference = "Stop"
Set-Location (Resolve-Path "$PSScriptRoot\..\..")

function Invoke-Checked {
    param([string]$Program, [string[]]$Arguments)
    & $Program @Arguments
    if ($LASTEXITCODE -ne 0) { throw "$Program $Arguments failed with exit code $LASTEXITCODE" }
}

function Invoke-Sign([string]$Path) {
    if (-not $env:OUTPOST_SIGN_PFX) { return }
    Invoke-Checked "signtool.exe" @("sign", "/fd", "sha256", "/f", $env:OUTPOST_SIGN_PFX, "/p", $env:OUTPOST_SIGN_PASSWORD,
        "/tr", $env:OUTPOST_TIMESTAMP_URL, "/td", "sha256", $Path)
}

if (-not (Test-Path ".venv\Scripts\python.exe")) { Invoke-Checked "py" @("-3", "-m", "venv", ".venv") }
$python = ".venv\Scripts\python.exe"
Invoke-Checked $python @("-m", "pip", "install", "--quiet", "--upgrade", "pip")
Invoke-Checked $python @("-m", "pip", "install", "--quiet", "-c", "constraints.txt", "-e", ".\model", "-e", ".\server", "-e", ".[dev]")
$version = (& $python -c "import console; print(console.__version__)").Trim()

$started = Get-Date
Invoke-Checked $python @("-m", "PyInstaller", "--noconfirm", "--clean", "--distpath", "dist", "--workpath", "build\pyinstaller",
    "packaging\outpost.spec")
$buildSeconds = [int]((Get-Date) - $started).TotalSeconds

# outpost.exe is a GUI program (no console window), so its output goes to files here.
$env:QT_QPA_PLATFORM = "offscreen"
$check = Start-Process -FilePath "dist\outpost\outpost.exe" -ArgumentList "--self-test" -Wait -PassThru -NoNewWindow `
    -RedirectStandardOutput "build\self-test.out" -RedirectStandardError "build\self-test.err"
Remove-Item Env:\QT_QPA_PLATFORM
Get-Content "build\self-test.out"
if ($check.ExitCode -ne 0) { Get-Content "build\self-test.err"; throw "self-test failed" }
Invoke-Checked $python @("packaging\check_bundle.py", "dist\outpost\outpost.exe")

Invoke-Sign "dist\outpost\outpost.exe"

$zip = "dist\outpost-$version-windows-x64.zip"
if (Test-Path $zip) { Remove-Item $zip }
Compress-Archive -Path "dist\outpost" -DestinationPath $zip

if (-not $SkipInstaller) {
    $iscc = $env:ISCC
    if (-not $iscc) {
        $found = Get-Command "ISCC.exe" -ErrorAction SilentlyContinue
        $iscc = if ($found) { $found.Source } else { "${env:ProgramFiles(x86)}\Inno Setup 6\ISCC.exe" }
    }
    Invoke-Checked $iscc @("/Qp", "/DAppVersion=$version", "packaging\windows\outpost.iss")
    Invoke-Sign "dist\outpost-$version-windows-x64-setup.exe"
}

$folderBytes = (Get-ChildItem "dist\outpost" -Recurse -File | Measure-Object -Property Length -Sum).Sum
"build time: $buildSeconds s"
"folder size: {0:N1} MB in dist\outpost" -f ($folderBytes / 1MB)
Get-ChildItem "dist\outpost-$version-windows-x64*" | ForEach-Object { "{0}: {1:N1} MB" -f $_.Name, ($_.Length / 1MB) }
